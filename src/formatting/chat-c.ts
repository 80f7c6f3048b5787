import type { RenderedEmbed } from './embed';
import { markdownToTelegramHtml } from './markdown';
import { escapeHtml } from './template-functions';

/** chat_c (Telegram-like) auto-conversion of an embed to the platform's HTML. */
export function embedToTelegramHtml(e: RenderedEmbed): string {
  const sections: string[] = [];
  const head: string[] = [];
  if (e.author) head.push(`<i>${escapeHtml(e.author)}</i>`);
  if (e.title) head.push(e.url ? `<b><a href="${escapeHtml(e.url)}">${escapeHtml(e.title)}</a></b>` : `<b>${escapeHtml(e.title)}</b>`);
  if (head.length) sections.push(head.join('\n'));
  if (e.description) sections.push(markdownToTelegramHtml(e.description));
  if (e.fields.length) {
    sections.push(
      e.fields
        .map((f) => {
          const value = markdownToTelegramHtml(f.value);
          if (!f.name) return value;
          return `<b>${escapeHtml(f.name)}</b>${value.includes('\n') ? '\n' : ': '}${value}`;
        })
        .join('\n'),
    );
  }
  const when = e.timestamp ? e.timestamp.replace('T', ' ').replace(/:\d\d(\.\d+)?Z$/, ' UTC') : '';
  const foot = [e.footer, when].filter(Boolean).join(' · ');
  if (foot) sections.push(`<i>${escapeHtml(foot)}</i>`);
  return sections.join('\n\n');
}
