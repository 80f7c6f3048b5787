import type { RenderedEmbed } from './embed';
import { markdownToSlack } from './markdown';
import { renderAt, type TemplateData } from './template-engine';
import { truncateText } from './template-functions';

/**
 * chat_a (Slack-like): `slack_blocks` are rendered string by string (keys and
 * non-string values stay as written); without blocks the embed is converted
 * to a legacy attachment.
 */

const MAX_BLOCKS = 50;
const TEXT_LIMITS: Record<string, number> = { header: 150 };
const TEXT_LIMIT = 3000;

function renderDeep(value: unknown, data: TemplateData, path: string): unknown {
  if (typeof value === 'string') return renderAt(value, data, 'text', path);
  if (Array.isArray(value)) return value.map((item, i) => renderDeep(item, data, `${path}[${i}]`));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renderDeep(v, data, `${path}.${k}`)]));
  }
  return value;
}

/** Cuts every text object to chat_a's limits; empty text (refused by chat_a) becomes a zero-width space. */
function limitTextObjects(value: unknown, limit: number): unknown {
  if (Array.isArray(value)) return value.map((item) => limitTextObjects(item, limit));
  if (!value || typeof value !== 'object') return value;
  const obj = value as Record<string, unknown>;
  const ownLimit = typeof obj.type === 'string' && TEXT_LIMITS[obj.type] ? TEXT_LIMITS[obj.type] : limit;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) out[k] = limitTextObjects(v, ownLimit);
  if ((obj.type === 'plain_text' || obj.type === 'mrkdwn') && typeof obj.text === 'string') {
    out.text = obj.text.trim() === '' ? '\u200b' : truncateText(obj.text, limit);
  }
  return out;
}

export function renderSlackBlocks(blocks: unknown[], data: TemplateData, path: string): unknown[] {
  return (renderDeep(blocks.slice(0, MAX_BLOCKS), data, path) as unknown[]).map((b) => limitTextObjects(b, TEXT_LIMIT));
}

function slackEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function embedToAttachment(e: RenderedEmbed, fallback: string): Record<string, unknown> {
  const a: Record<string, unknown> = { fallback: slackEscape(e.title || fallback) };
  if (e.color !== undefined) a.color = `#${e.color.toString(16).padStart(6, '0')}`;
  if (e.author) a.author_name = slackEscape(e.author);
  if (e.title) a.title = slackEscape(e.title);
  if (e.url) a.title_link = e.url;
  if (e.description) a.text = markdownToSlack(e.description);
  if (e.fields.length) {
    a.fields = e.fields.map((f) => ({ title: slackEscape(f.name), value: markdownToSlack(f.value), short: f.inline }));
  }
  if (e.thumbnail) a.thumb_url = e.thumbnail;
  if (e.footer) a.footer = slackEscape(e.footer);
  if (e.timestamp) a.ts = Math.floor(Date.parse(e.timestamp) / 1000);
  a.mrkdwn_in = ['text', 'fields'];
  return a;
}
