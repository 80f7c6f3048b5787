import sanitizeHtml from 'sanitize-html';
import { cutUtf16, escapeHtml } from './template-functions';

/**
 * Makes a string safe to send to chat_c with `parse_mode: HTML` (docs/templates.md): only the tags that platform accepts
 * survive, with only their allowed attributes (`a` only with an absolute http(s)/tg/mailto href,
 * `code` only with a `language-…` class, `span` only as `class="tg-spoiler"`), properly nested and
 * closed; every other tag and every `<`, `>` or `&` of the text is escaped. sanitize-html parses the
 * markup with htmlparser2 as a browser would (entities decoded, comments dropped, misnested tags
 * closed). The visible text is cut at the platform's 4096-character message limit (UTF-16 units),
 * with an ellipsis.
 */

export const TELEGRAM_TAGS = [
  'b', 'strong', 'i', 'em', 'u', 'ins', 's', 'strike', 'del', 'code', 'pre', 'a', 'blockquote', 'tg-spoiler', 'span',
] as const;
export const TELEGRAM_TEXT_LIMIT = 4096;

const SAFE_URL = /^(https?:\/\/|tg:\/\/|mailto:)\S+$/i;

export function isSafeUrl(url: string): boolean {
  return SAFE_URL.test(url.trim());
}

/**
 * The platform's nesting rules, applied as the parser opens tags: the open tags and whether each is
 * kept (a dropped tag leaves its content). sanitize-html calls the hooks below synchronously, in
 * document order, so one module-level stack serves every call.
 */
const open: Array<{ name: string; kept: boolean }> = [];
/** The tag the parser closed last: `exclusiveFilter` runs for it right after `onCloseTag`. */
let closed: { name: string; kept: boolean } | undefined;

function keep(name: string, attribs: sanitizeHtml.Attributes): boolean {
  if (name === 'br') return true;
  const kept = open.filter((o) => o.kept);
  const parent = kept.at(-1);
  // Inside pre/code nothing may nest but `code` directly in `pre`; links do not nest.
  if (kept.some((o) => o.name === 'code' || o.name === 'pre') && !(name === 'code' && parent?.name === 'pre' && open.at(-1) === parent)) return false;
  if (name === 'a') return !kept.some((o) => o.name === 'a') && attribs.href !== undefined && isSafeUrl(attribs.href);
  if (name === 'span') return attribs.class?.split(/\s+/).includes('tg-spoiler') === true;
  return true;
}

const OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: [...TELEGRAM_TAGS, 'br'],
  allowedAttributes: { a: ['href'], code: ['class'], span: ['class'], blockquote: ['expandable'] },
  allowedClasses: { code: [/^language-[\w+#-]+$/], span: ['tg-spoiler'] },
  allowedSchemes: ['http', 'https', 'tg', 'mailto'],
  allowedSchemesAppliedToAttributes: ['href'],
  allowProtocolRelative: false,
  selfClosing: ['br'],
  // Everything else is shown as text, content included (no tag's text is silently dropped).
  disallowedTagsMode: 'escape',
  nonTextTags: [],
  // Quotes in text as `&quot;`, as the template's own html_escape writes them.
  textFilter: (text) => text.replaceAll('"', '&quot;'),
  onOpenTag: (name) => open.push({ name, kept: true }),
  onCloseTag: () => void (closed = open.pop()),
  transformTags: {
    '*': (tagName, attribs) => {
      // onOpenTag pushed this tag already: it is judged against its ancestors.
      const self = open.pop()!;
      self.kept = keep(tagName, attribs);
      open.push(self);
      return { tagName, attribs };
    },
  },
  exclusiveFilter: () => (closed?.kept === false ? 'excludeTag' : false),
};

export function sanitizeTelegramHtml(html: string, maxLength = TELEGRAM_TEXT_LIMIT): string {
  open.length = 0;
  // A `<br>` is a line break; the output's only `<br />` is one (text `<` is always escaped).
  const clean = sanitizeHtml(html, OPTIONS).replaceAll('<br />', '\n');
  return clean.length <= maxLength ? clean : cutVisible(clean, maxLength);
}

const ENTITY_TEXT: Record<string, string> = { '&lt;': '<', '&gt;': '>', '&amp;': '&', '&quot;': '"' };

/** The text a reader sees of sanitized output (tags removed, its four entities decoded). */
export function visibleText(clean: string): string {
  return clean.replace(/<[^>]*>/g, '').replace(/&(?:lt|gt|amp|quot);/g, (e) => ENTITY_TEXT[e]);
}

/**
 * Cuts sanitized output (only the allowed tags, text escaped as `&lt;` `&gt;` `&amp;` `&quot;`) to
 * `maxLength` visible characters: past it the text ends with an ellipsis and the open tags are closed.
 */
function cutVisible(clean: string, maxLength: number): string {
  if (visibleText(clean).length <= maxLength) return clean;
  const budget = maxLength - 1;
  const out: string[] = [];
  const stack: string[] = [];
  let visible = 0;
  for (const [token, closing, name] of clean.matchAll(/<(\/?)([a-z-]+)[^>]*>|&(?:lt|gt|amp|quot);|[^<&]+/g)) {
    if (name) {
      out.push(token);
      if (closing) stack.pop();
      else stack.push(name);
      continue;
    }
    const text = ENTITY_TEXT[token] ?? token;
    if (visible + text.length <= budget) {
      out.push(token);
      visible += text.length;
      continue;
    }
    out.push(escapeHtml(cutUtf16(text, budget - visible).trimEnd()));
    break;
  }
  return out.join('') + '…' + stack.reverse().map((name) => `</${name}>`).join('');
}
