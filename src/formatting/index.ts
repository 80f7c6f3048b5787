import { embedToAttachment, renderSlackBlocks } from './chat-a';
import { embedToTelegramHtml } from './chat-c';
import { selectVariant } from './config-variant';
import { defaultEmbed, defaultSummary } from './default-message';
import { EMBED_LIMITS, type RenderedEmbed, renderEmbed, toChatBEmbed } from './embed';
import { sanitizeTelegramHtml } from './telegram-html';
import { renderAt, type TemplateData } from './template-engine';
import { truncateText } from './template-functions';

/**
 * Message formatting for chat destinations (docs/templates.md,
 * docs/templates.md). Pure and synchronous: compiled templates are cached,
 * so a typical message renders in a few microseconds. Templates are never
 * applied to `webhook` (or `cli`) destinations: they receive the payload.
 */

export { TemplateRenderError } from './errors';
export { clearTemplateCache } from './template-engine';
export { TEMPLATE_FUNCTION_NAMES } from './template-functions';
export { sanitizeTelegramHtml } from './telegram-html';

export interface TemplateMeta {
  EventType: string;
  EventID: string;
  EndpointID: string;
  EndpointSlug: string;
  DestinationID: string;
  ReceivedAt: string;
  Headers: Record<string, string>;
}

export type ChatPlatform = 'chat_a' | 'chat_b' | 'chat_c';
export const CHAT_PLATFORMS: readonly ChatPlatform[] = ['chat_a', 'chat_b', 'chat_c'];

export function isChatPlatform(type: string): type is ChatPlatform {
  return (CHAT_PLATFORMS as readonly string[]).includes(type);
}

export interface RenderMessageArgs {
  platform: ChatPlatform;
  templateConfig: Record<string, unknown> | null | undefined;
  payload: unknown;
  meta: TemplateMeta;
}

/**
 * The message body in the platform's own API shape, without addressing
 * fields (webhook URL / channel / chat id are added by the sender). chat_b
 * bodies with `content` also carry `allowed_mentions`.
 * Throws TemplateRenderError naming the faulty config path and line.
 */
export function renderMessage({ platform, templateConfig, payload, meta }: RenderMessageArgs): Record<string, unknown> {
  const data: TemplateData = { Meta: meta, Payload: payload };
  const selected = selectVariant(templateConfig, platform);
  const variant = selected?.variant ?? {};
  const prefix = selected?.path ?? '';
  const text = (key: string) => renderAt(variant[key], data, 'text', prefix + key).trim();
  const embed = (): RenderedEmbed => renderEmbed(variant, data, prefix, meta.ReceivedAt) ?? defaultEmbed(payload, meta);

  switch (platform) {
    case 'chat_b': {
      const content = truncateText(text('content'), EMBED_LIMITS.content);
      const rendered = renderEmbed(variant, data, prefix, meta.ReceivedAt) ?? (content ? null : defaultEmbed(payload, meta));
      if (!content) return { embeds: rendered ? [toChatBEmbed(rendered)] : [] };
      // Payload text in `content` must not ping everyone: @everyone/@here only when the template itself writes them.
      const everyone = typeof variant.content === 'string' && /@(everyone|here)\b/.test(variant.content);
      const allowedMentions = { parse: everyone ? ['users', 'roles', 'everyone'] : ['users', 'roles'] };
      return { content, embeds: rendered ? [toChatBEmbed(rendered)] : [], allowed_mentions: allowedMentions };
    }
    case 'chat_a': {
      const fallback = text('text');
      if (Array.isArray(variant.slack_blocks)) {
        const blocks = renderSlackBlocks(variant.slack_blocks, data, `${prefix}slack_blocks`);
        return { text: fallback || text('title') || defaultSummary(meta.EventType), blocks };
      }
      return { text: fallback, attachments: [embedToAttachment(embed(), defaultSummary(meta.EventType))] };
    }
    case 'chat_c': {
      if (typeof variant.telegram_html === 'string') {
        const html = sanitizeTelegramHtml(renderAt(variant.telegram_html, data, 'html', `${prefix}telegram_html`)).trim();
        if (html) return { text: html, parse_mode: 'HTML' };
      }
      return { text: sanitizeTelegramHtml(embedToTelegramHtml(embed())), parse_mode: 'HTML' };
    }
    default:
      throw new Error(`renderMessage: "${String(platform)}" is not a chat platform`);
  }
}
