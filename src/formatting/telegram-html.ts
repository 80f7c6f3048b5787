import { cutUtf16, escapeHtml } from './template-functions';

/**
 * Makes a string safe to send to chat_c with `parse_mode: HTML` (docs/behaviour.md
 * #templates-and-transforms): only the tags that platform accepts survive, normalised (no stray
 * attributes, `a` only with an http(s)/tg/mailto href), properly nested and
 * closed; every other `<`, `>` or `&` is escaped. The visible text is cut at
 * the platform's 4096-character message limit (UTF-16 units), with an ellipsis.
 */

export const TELEGRAM_TAGS = [
  'b', 'strong', 'i', 'em', 'u', 'ins', 's', 'strike', 'del', 'code', 'pre', 'a', 'blockquote', 'tg-spoiler', 'span',
] as const;
const ALLOWED = new Set<string>(TELEGRAM_TAGS);
export const TELEGRAM_TEXT_LIMIT = 4096;

const TOKEN =
  /<(\/?)([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[^\s=<>"'/]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'<>=`]+))?)*)\s*(\/?)>|&(?:#\d{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-zA-Z]+);|[<>&]/g;
const ATTRIBUTE = /([^\s=<>"'/]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'<>=`]+)))?/g;
const KEPT_ENTITY = /^&(?:lt|gt|amp|quot|#\d+|#[xX][0-9a-fA-F]+);$/;

export function decodeEntities(text: string): string {
  return text.replace(/&(#\d{1,7}|#[xX][0-9a-fA-F]{1,6}|lt|gt|amp|quot|apos|#39);/g, (whole, body: string) => {
    const named: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
    if (named[body]) return named[body];
    const code = body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

export function isSafeUrl(url: string): boolean {
  return /^(https?:\/\/|tg:\/\/|mailto:)[^\s]+$/i.test(url.trim());
}

function attributes(text: string): Map<string, string> {
  const attrs = new Map<string, string>();
  for (const m of text.matchAll(ATTRIBUTE)) attrs.set(m[1].toLowerCase(), decodeEntities(m[2] ?? m[3] ?? m[4] ?? ''));
  return attrs;
}

/** The normalised opening tag, or null when the tag must be dropped (its content stays). */
function openingTag(name: string, attrText: string): string | null {
  const attrs = attributes(attrText);
  switch (name) {
    case 'a': {
      const href = attrs.get('href');
      return href && isSafeUrl(href) ? `<a href="${escapeHtml(href.trim())}">` : null;
    }
    case 'code': {
      const cls = attrs.get('class');
      return cls && /^language-[\w+#-]+$/.test(cls) ? `<code class="${cls}">` : '<code>';
    }
    case 'span':
      return attrs.get('class') === 'tg-spoiler' ? '<span class="tg-spoiler">' : null;
    case 'blockquote':
      return attrs.has('expandable') ? '<blockquote expandable>' : '<blockquote>';
    default:
      return `<${name}>`;
  }
}

interface Open {
  name: string;
  emitted: boolean;
}

export function sanitizeTelegramHtml(html: string, maxLength = TELEGRAM_TEXT_LIMIT): string {
  // Visible text is never longer than the source, so short messages take one pass.
  if (html.length <= maxLength) return sanitize(html, Infinity).html;
  const whole = sanitize(html, Infinity);
  return whole.visible <= maxLength ? whole.html : sanitize(html, maxLength - 1).html;
}

/** One pass; past `budget` visible characters the text ends with an ellipsis. */
function sanitize(html: string, budget: number): { html: string; visible: number } {
  const out: string[] = [];
  const stack: Open[] = [];
  let visible = 0;
  let full = false;

  /** Adds escaped text of `chars` visible characters; false once the limit is reached. */
  const addText = (text: string, escaped = escapeHtml(text), chars = text.length): boolean => {
    if (full) return false;
    if (visible + chars <= budget) {
      out.push(escaped);
      visible += chars;
      return true;
    }
    const room = Math.max(0, budget - visible);
    out.push(escapeHtml(cutUtf16(decodeEntities(text), room).trimEnd()) + '…');
    visible = budget + 1;
    full = true;
    return false;
  };

  const inVerbatim = () => stack.some((o) => o.emitted && (o.name === 'code' || o.name === 'pre'));

  let last = 0;
  for (const m of html.matchAll(TOKEN)) {
    if (m.index > last && !addText(html.slice(last, m.index))) break;
    last = m.index + m[0].length;
    const token = m[0];
    if (token.length === 1) {
      if (!addText(token)) break;
      continue;
    }
    if (token[0] === '&') {
      const ok = KEPT_ENTITY.test(token) ? addText(decodeEntities(token), token.replace(/^&#X/, '&#x')) : addText(token);
      if (!ok) break;
      continue;
    }
    const [, slash, rawName, attrText, selfClose] = m;
    const name = rawName.toLowerCase();
    if (name === 'br' && !slash) {
      if (!addText('\n')) break;
      continue;
    }
    if (!ALLOWED.has(name) || selfClose) {
      if (!addText(token)) break;
      continue;
    }
    if (slash) {
      const at = stack.map((o) => o.name).lastIndexOf(name);
      if (at < 0) continue;
      for (const open of stack.splice(at).reverse()) if (open.emitted) out.push(`</${open.name}>`);
      continue;
    }
    // Inside pre/code nothing may nest but `code` directly in `pre`; links do not nest.
    const top = stack.at(-1);
    const nestingOk = !inVerbatim() || (name === 'code' && top?.emitted && top.name === 'pre');
    const tag = nestingOk && !(name === 'a' && stack.some((o) => o.name === 'a' && o.emitted)) ? openingTag(name, attrText) : null;
    if (tag) out.push(tag);
    stack.push({ name, emitted: tag !== null });
  }
  if (!full && last < html.length) addText(html.slice(last));
  for (const open of stack.reverse()) if (open.emitted) out.push(`</${open.name}>`);
  return { html: out.join(''), visible };
}
