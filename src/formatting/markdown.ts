import { escapeHtml } from './template-functions';

/**
 * Embed text is written in the chat_b markdown dialect (`**bold**`,
 * `*italic*`, `__underline__`, `~~strike~~`, `` `code` ``, fenced code,
 * `[text](url)`, `> quote`, `# heading`). Auto-conversion turns it into the
 * other platforms' formats, escaping everything else.
 */

/** A piece no later rule may touch: code, or an already converted link. */
type Span = { code: string; block: boolean; lang?: string } | { raw: string };

interface CodeSpans {
  text: string;
  spans: Span[];
}

const MARK = '\uE000';

/** Takes code out so that no other rule touches it; placeholders are `\0<n>\0`. */
function extractCode(md: string): CodeSpans {
  const spans: CodeSpans['spans'] = [];
  const text = md
    .replace(/[\uE000\uE001]/g, '')
    .replace(/```(?:([\w+#-]+)\n)?([\s\S]*?)```/g, (_m, lang: string | undefined, code: string) => {
      spans.push({ code: code.replace(/\n$/, ''), block: true, lang });
      return `${MARK}${spans.length - 1}${MARK}`;
    })
    .replace(/`([^`\n]+)`/g, (_m, code: string) => {
      spans.push({ code, block: false });
      return `${MARK}${spans.length - 1}${MARK}`;
    });
  return { text, spans };
}

function protect(spans: Span[], raw: string): string {
  spans.push({ raw });
  return `${MARK}${spans.length - 1}${MARK}`;
}

function restoreCode(text: string, spans: Span[], render: (span: Exclude<Span, { raw: string }>) => string): string {
  return text.replace(/\uE000(\d+)\uE000/g, (_m, i: string) => {
    const span = spans[Number(i)];
    return 'raw' in span ? span.raw : render(span);
  });
}

/** Text without any markdown character only needs escaping (most field values). */
const MARKDOWN_CHARS = /[*_~|`[>#\uE000\uE001]/;

export function markdownToTelegramHtml(md: string): string {
  if (!MARKDOWN_CHARS.test(md)) return escapeHtml(md);
  const { text, spans } = extractCode(md);
  const html = escapeHtml(text)
    .replace(/\[([^\]\n]+)\]\((https?:\/\/[^\s)]+)\)/g, (_m, label: string, url: string) => `<a href="${protect(spans, url)}">${label}</a>`)
    .replace(/\*\*([^\n]+?)\*\*/g, '<b>$1</b>')
    .replace(/__([^\n]+?)__/g, '<u>$1</u>')
    .replace(/~~([^\n]+?)~~/g, '<s>$1</s>')
    .replace(/\|\|([^\n]+?)\|\|/g, '<tg-spoiler>$1</tg-spoiler>')
    .replace(/(^|[^\w*])\*([^*\n]+)\*(?![\w*])/g, '$1<i>$2</i>')
    .replace(/(^|[^\w])_([^_\n]+)_(?!\w)/g, '$1<i>$2</i>')
    .replace(/^#{1,3} (.+)$/gm, '<b>$1</b>')
    .replace(/^&gt; (.*)$/gm, '<blockquote>$1</blockquote>')
    .replace(/<\/blockquote>\n<blockquote>/g, '\n');
  return restoreCode(html, spans, (s) =>
    s.block
      ? `<pre>${s.lang ? `<code class="language-${s.lang}">${escapeHtml(s.code)}</code>` : escapeHtml(s.code)}</pre>`
      : `<code>${escapeHtml(s.code)}</code>`,
  );
}

/** chat_a mrkdwn: `&`, `<`, `>` escaped (so payload text cannot mention or link), markdown translated. */
export function markdownToSlack(md: string): string {
  if (!MARKDOWN_CHARS.test(md)) return md.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const { text, spans } = extractCode(md);
  const BOLD = '\uE001';
  const mrkdwn = text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\[([^\]\n|]+)\]\((https?:\/\/[^\s)|]+)\)/g, (_m, label: string, url: string) => `<${protect(spans, url)}|${label}>`)
    .replace(/\*\*([^\n]+?)\*\*/g, `${BOLD}$1${BOLD}`)
    .replace(/(^|[^\w*])\*([^*\n]+)\*(?![\w*])/g, '$1_$2_')
    .replace(/__([^\n]+?)__/g, '_$1_')
    .replace(/~~([^\n]+?)~~/g, '~$1~')
    .replace(/^#{1,3} (.+)$/gm, `${BOLD}$1${BOLD}`)
    .replace(/^&gt; /gm, '> ')
    .replace(/\uE001/g, '*');
  const slackEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return restoreCode(mrkdwn, spans, (s) => (s.block ? '```' + slackEscape(s.code) + '```' : '`' + slackEscape(s.code) + '`'));
}
