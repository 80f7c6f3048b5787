import { z } from 'zod';
import { AppError } from '../common/errors';
import type { Config } from '../config/config';
import { BOT_API_SETTING, botApiBaseUrl } from '../sending/chat.sender';

/**
 * Which destination types this server can deliver to, and the refusal of a
 * destination that could not be delivered (docs/resources.md "Destinations").
 * Webhook URLs (webhook, chat_a, chat_b) need no server setting; bot-token sends
 * (chat_a, chat_b, and every chat_c) post to the platform's API root, which the
 * operator sets (CHAT_*_API_BASE_URL). A destination that would send through a
 * root the server lacks is refused when it is saved, not dead-lettered later.
 */

/** The types the API creates (`cli` destinations are made by `relay listen`). */
export const API_DESTINATION_TYPES = ['chat_b', 'chat_a', 'chat_c', 'webhook'] as const;
export type ApiDestinationType = (typeof API_DESTINATION_TYPES)[number];

/** What each type's receiver gets (the dashboard's type labels). */
const DESCRIPTIONS: Record<ApiDestinationType, string> = {
  webhook: 'any HTTP endpoint: the event’s JSON body, signed',
  chat_a: 'chat platform A: a message with blocks or an attachment',
  chat_b: 'chat platform B: a message with an embed',
  chat_c: 'chat platform C: an HTML message',
};

export const destinationPlatformView = z.object({
  type: z.enum(API_DESTINATION_TYPES),
  description: z.string().describe('What the receiver gets'),
  available: z.boolean().describe('A destination of this type can be created on this server'),
  configured: z.boolean().describe('Every way this type sends works on this server'),
  setting: z.string().nullable().describe('The server setting bot-token sends need; null: the type needs none'),
  reason: z.string().nullable().describe('What does not work here, naming the setting; null when configured'),
});
export type DestinationPlatformView = z.infer<typeof destinationPlatformView>;

/** The types in the order a form offers them, with what this server's settings allow. */
export function destinationPlatforms(config: Config): DestinationPlatformView[] {
  return (['webhook', 'chat_a', 'chat_b', 'chat_c'] as const).map((type) => {
    const description = DESCRIPTIONS[type];
    if (type === 'webhook') return { type, description, available: true, configured: true, setting: null, reason: null };
    const setting = BOT_API_SETTING[type];
    const configured = botApiBaseUrl(type, config) !== null;
    // chat_c sends only with a bot token; chat_a and chat_b also post to a webhook URL.
    const available = configured || type !== 'chat_c';
    return { type, description, available, configured, setting, reason: configured ? null : notConfiguredReason(type, setting) };
  });
}

function notConfiguredReason(type: ApiDestinationType, setting: string): string {
  const alternative = type === 'chat_c' ? '' : '; webhook URLs work without it';
  return `${type} bot-token sends need ${setting}, which this server does not set${alternative}.`;
}

/**
 * Refuses (400 `platform_not_configured`, naming the setting) a destination
 * that would send with a bot token to a platform whose API root the server lacks.
 */
export function checkPlatformConfigured(destination: { type: string; botTokenEnc?: string | null }, config: Config): void {
  const { type } = destination;
  if (type !== 'chat_a' && type !== 'chat_b' && type !== 'chat_c') return;
  if (!destination.botTokenEnc || botApiBaseUrl(type, config) !== null) return;
  const setting = BOT_API_SETTING[type];
  const message = `${notConfiguredReason(type, setting)} Ask the operator to set ${setting} to the platform's API root${type === 'chat_c' ? '' : ', or give a webhook_url instead of bot_token'}.`;
  throw new AppError(400, 'platform_not_configured', message, { setting, fields: [{ field: 'bot_token', message }] });
}
