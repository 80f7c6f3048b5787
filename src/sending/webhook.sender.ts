import { stringifyJson } from '../common/raw-json';
import { answerToResult, failureToResult, postJson } from './http-client';
import { withReceiverSignals } from './retry-after';
import { notSent, type SendResult } from './send-result';
import { type SignatureScheme, signOutbound, signStandard, standardKey } from './signature';
import { checkTargetUrl } from './target-url';

/** What a delivery signs with: the destination's scheme (default `service`), its secret, and the previous one during a rotation overlap. */
export interface OutboundSigning {
  scheme?: SignatureScheme;
  secret: string;
  previousSecret?: string | null;
}

export interface WebhookSendArgs {
  url: string;
  /** The body; a RawJson is sent as its exact text. */
  payload: unknown;
  /** The project's header prefix: headers are `X-{prefix}-Event-ID` etc. */
  headerPrefix: string;
  eventId: string;
  endpointId: string;
  deliveryId?: string;
  signing?: OutboundSigning | null;
  timeoutMs: number;
  allowPrivateNetworks: boolean;
  now?: () => number;
}

/**
 * Sends a delivery to a `webhook` destination (docs/internals/sending.md): the JSON body,
 * the event and endpoint id headers and, when the destination has a secret,
 * its signature headers in the destination's scheme (deliveryHeaders).
 */
export async function sendWebhook(args: WebhookSendArgs): Promise<SendResult> {
  const urlError = checkTargetUrl(args.url);
  if (urlError) return notSent(args.payload, urlError, { permanent: true });

  const body = stringifyJson(args.payload);
  const { url, authorization } = splitCredentials(args.url);
  const headers: Record<string, string> = { ...(authorization ? { authorization } : {}), ...deliveryHeaders(args, body) };

  const payloadSent = args.payload ?? null;
  const outcome = await postJson(url, body, { timeoutMs: args.timeoutMs, allowPrivateNetworks: args.allowPrivateNetworks, headers });
  if ('error' in outcome) return failureToResult(outcome, payloadSent);
  const result = answerToResult(outcome, payloadSent);
  return result.ok ? result : withReceiverSignals(result, outcome.headers, (args.now ?? Date.now)());
}

/**
 * The headers of a delivery: the `X-{prefix}-*` event, endpoint and delivery ids
 * and, with a signing secret, the timestamp and signature(s) over `body` in the
 * destination's scheme: `X-{prefix}-Timestamp` / `-Signature` (/ `-Signature-Previous`),
 * or Standard Webhooks' `webhook-id` (the delivery id: the same on every retry),
 * `webhook-timestamp` and `webhook-signature` (both signatures, space-separated, during an overlap).
 * The CLI tunnel's forwards carry the same (src/cli-sessions/cli-forwarder.ts).
 */
export function deliveryHeaders(
  args: Pick<WebhookSendArgs, 'headerPrefix' | 'eventId' | 'endpointId' | 'deliveryId' | 'signing' | 'now'>,
  body: string,
): Record<string, string> {
  const prefix = `X-${args.headerPrefix}`;
  const headers: Record<string, string> = {
    [`${prefix}-Event-ID`]: args.eventId,
    [`${prefix}-Endpoint-ID`]: args.endpointId,
  };
  if (args.deliveryId) headers[`${prefix}-Delivery-ID`] = args.deliveryId;
  const signing = args.signing;
  if (!signing?.secret) return headers;
  const timestamp = Math.floor((args.now ?? Date.now)() / 1000);
  if (signing.scheme === 'standard') {
    const id = args.deliveryId ?? args.eventId;
    const signature = signStandard(standardKey(signing.secret), id, timestamp, body);
    headers['webhook-id'] = id;
    headers['webhook-timestamp'] = String(timestamp);
    headers['webhook-signature'] = signing.previousSecret ? `${signature} ${signStandard(standardKey(signing.previousSecret), id, timestamp, body)}` : signature;
  } else {
    headers[`${prefix}-Timestamp`] = String(timestamp);
    headers[`${prefix}-Signature`] = signOutbound(signing.secret, timestamp, body);
    if (signing.previousSecret) headers[`${prefix}-Signature-Previous`] = signOutbound(signing.previousSecret, timestamp, body);
  }
  return headers;
}

/** `https://user:pass@host/…` sends HTTP Basic credentials (the URL itself never carries them on the wire). */
function splitCredentials(raw: string): { url: string; authorization: string | null } {
  const url = new URL(raw);
  if (!url.username && !url.password) return { url: raw, authorization: null };
  const credentials = `${safeDecode(url.username)}:${safeDecode(url.password)}`;
  url.username = '';
  url.password = '';
  return { url: url.toString(), authorization: `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}` };
}

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}
