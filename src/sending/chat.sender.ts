import type { Config } from '../config/config';
import { answerToResult, failureToResult, type HttpAnswer, postJson } from './http-client';
import { type ChatPlatform, type PlatformCooldowns } from './platform-cooldowns';
import { clampRetryAfter, parseRateLimit, withReceiverSignals } from './retry-after';
import { notSent, type SendResult } from './send-result';
import { checkTargetUrl } from './target-url';

export interface ChatSendArgs {
  platform: ChatPlatform;
  webhookUrl?: string | null;
  botToken?: string | null;
  channelId?: string | null;
  guildId?: string | null;
  /** The platform body rendered by src/formatting, without addressing fields. */
  message: Record<string, unknown>;
  eventId: string;
  timeoutMs: number;
  allowPrivateNetworks: boolean;
}

export interface ChatSendDeps {
  config: Config;
  cooldowns: PlatformCooldowns;
}

interface Route {
  url: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
  /**
   * The bot token when the send goes to the platform's API the server is configured with (trusted, and the only
   * answers whose global limit is honoured, for this token); null for a user-supplied webhook URL (the SSRF guard
   * applies, and its answers concern this delivery only).
   */
  apiCredential: string | null;
}

/** The setting each platform's bot-token sends read their API root from; webhook-URL sends need none. */
export const BOT_API_SETTING = { chat_a: 'CHAT_A_API_BASE_URL', chat_b: 'CHAT_B_API_BASE_URL', chat_c: 'CHAT_C_API_BASE_URL' } as const;

/** The platform's API root for bot-token sends, without a trailing slash; null when the server does not set it. */
export function botApiBaseUrl(platform: ChatPlatform, config: Pick<Config, (typeof BOT_API_SETTING)[ChatPlatform]>): string | null {
  return config[BOT_API_SETTING[platform]]?.replace(/\/+$/, '') || null;
}

/**
 * Where and how a chat message goes (docs/delivery.md#chat-destinations). With a bot token and a
 * channel id the platform API is used; otherwise the destination's webhook URL.
 */
function route(args: ChatSendArgs, config: Config): Route | { error: string } {
  const { platform, message } = args;
  if (args.botToken) {
    if (!args.channelId) return { error: `a ${platform} destination with a bot token needs a channel_id` };
    const base = botApiBaseUrl(platform, config);
    if (!base) return { error: `${BOT_API_SETTING[platform]} is not set: a ${platform} destination with a bot token needs the platform's API base URL` };
    const channel = encodeURIComponent(args.channelId);
    switch (platform) {
      case 'chat_a':
        return {
          url: `${base}/chat.postMessage`,
          headers: { authorization: `Bearer ${args.botToken}`, 'content-type': 'application/json; charset=utf-8' },
          body: { ...message, channel: args.channelId },
          apiCredential: args.botToken,
        };
      case 'chat_b':
        return { url: `${base}/channels/${channel}/messages`, headers: { authorization: `Bot ${args.botToken}` }, body: message, apiCredential: args.botToken };
      case 'chat_c':
        return {
          url: `${base}/bot${encodeURIComponent(args.botToken).replace(/%3A/gi, ':')}/sendMessage`,
          headers: {},
          body: { parse_mode: 'HTML', ...message, chat_id: args.channelId },
          apiCredential: args.botToken,
        };
    }
  }
  if (!args.webhookUrl) {
    return { error: `a ${platform} destination needs ${platform === 'chat_c' ? 'a bot token and a channel_id' : 'a webhook URL, or a bot token and a channel_id'}` };
  }
  if (platform === 'chat_c') return { error: 'chat_c destinations send with a bot token and a channel_id, not a webhook URL' };
  const urlError = checkTargetUrl(args.webhookUrl);
  if (urlError) return { error: urlError };
  const url = new URL(args.webhookUrl);
  // chat_b answers a webhook post with the created message (instead of an empty 204) only when asked to wait.
  if (platform === 'chat_b') url.searchParams.set('wait', 'true');
  return { url: url.toString(), headers: {}, body: message, apiCredential: null };
}

/**
 * Sends one chat message. A 429 (or the bot token's global cooldown in force) comes back as
 * `rateLimited`: the caller waits `retryAfterMs` (within the floor and ceiling of retry-after.ts)
 * without counting an attempt, while the retry schedule allows (decideAttempt). A global limit
 * from the platform's own API also starts that bot token's cooldown for every worker; from a
 * webhook URL (the tenant's) it concerns this delivery only (docs/receiver-signals.md).
 */
export async function sendChatMessage(args: ChatSendArgs, deps: ChatSendDeps): Promise<SendResult> {
  const target = route(args, deps.config);
  if ('error' in target) return notSent(args.message, target.error, { permanent: true });
  const credential = target.apiCredential;

  const until = credential === null ? null : await deps.cooldowns.activeUntil(args.platform, credential);
  if (until) {
    return notSent(target.body, `${args.platform}'s global rate limit for this bot token lasts until ${until.toISOString()}; not sent`, {
      rateLimited: { retryAfterMs: clampRetryAfter(until.getTime() - Date.now()), global: true },
    });
  }

  const outcome = await postJson(target.url, JSON.stringify(target.body), {
    timeoutMs: args.timeoutMs,
    allowPrivateNetworks: credential === null ? args.allowPrivateNetworks : true,
    headers: target.headers,
  });
  if ('error' in outcome) return failureToResult(outcome, target.body);

  const result = answerToResult(outcome, target.body);
  const json = parseJson(outcome);
  if (outcome.statusCode === 429) {
    const limit = parseRateLimit(outcome.headers, json);
    // Only the platform's own API speaks for the token; a webhook URL's "global" is about that URL alone.
    const global = limit.global && credential !== null;
    if (global) await deps.cooldowns.set(args.platform, credential, new Date(Date.now() + limit.retryAfterMs));
    result.rateLimited = { retryAfterMs: limit.retryAfterMs, global };
    result.error = `rate limited by ${credential === null ? `the ${args.platform} webhook URL` : args.platform}${global ? ' (global limit for this bot token)' : ''}: retry after ${limit.retryAfterMs} ms`;
    return result;
  }
  // chat_a and chat_c answer some failures with 200 and `{ "ok": false }`.
  if (result.ok && json && (json as { ok?: unknown }).ok === false) result.ok = false;
  if (!result.ok) {
    const detail = platformError(json, outcome);
    result.error = `${result.error ?? `${args.platform} API error`}${detail ? `: ${detail}` : ''}`;
    withReceiverSignals(result, outcome.headers);
  }
  return result;
}

function parseJson(answer: HttpAnswer): unknown {
  const text = answer.body.toString('utf8').trim();
  if (!text.startsWith('{')) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

/** The platform's own words for a failure: `description` (chat_c), `error` (chat_a), `message` (chat_b), or a short text body. */
function platformError(json: unknown, answer: HttpAnswer): string | null {
  if (json && typeof json === 'object') {
    const j = json as Record<string, unknown>;
    for (const key of ['description', 'error', 'message']) if (typeof j[key] === 'string') return j[key];
  }
  const text = answer.body.toString('utf8', 0, 200).trim();
  return text && !text.startsWith('{') && !text.startsWith('<') ? text : null;
}
