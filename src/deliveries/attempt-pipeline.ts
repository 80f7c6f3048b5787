import type { SecretBox } from '../common/secret-box';
import type { Config } from '../config/config';
import { destinationSigningSecrets } from '../destinations/destination-secret.service';
import { notSent, type SendResult } from '../sending/send-result';
import { sendWebhook } from '../sending/webhook.sender';
import type { AttemptContext } from './attempt-store';

export interface PipelineDeps {
  config: Pick<Config, 'NODE_ENV' | 'RELAY_ALLOW_PRIVATE_NETWORKS' | 'RELAY_DELIVERY_TIMEOUT_MS'>;
  secrets: SecretBox;
}

/** RULINGS.md §27: development and test allow private addresses; production only when told to. */
export function allowPrivateNetworks(config: PipelineDeps['config']): boolean {
  return config.NODE_ENV !== 'production' || config.RELAY_ALLOW_PRIVATE_NETWORKS;
}

/**
 * One attempt's work before recording: pick the route, transform, render (chat
 * types) and send. Never throws for a delivery problem: a failure is a SendResult
 * (`permanent` when retrying cannot help, e.g. a transform error, RULINGS.md §9).
 */
export async function sendAttempt(ctx: AttemptContext, deps: PipelineDeps): Promise<SendResult> {
  const { destination } = ctx;
  const timeoutMs = deps.config.RELAY_DELIVERY_TIMEOUT_MS;
  const payload = ctx.payload;
  switch (destination.type) {
    case 'webhook': {
      if (!destination.webhookUrlEnc) return notSent(payload, 'the destination has no webhook_url', { permanent: true });
      return sendWebhook({
        url: deps.secrets.open(destination.webhookUrlEnc),
        payload,
        headerPrefix: ctx.headerPrefix,
        eventId: ctx.eventId,
        endpointId: ctx.endpointId,
        deliveryId: ctx.deliveryId,
        signing: destinationSigningSecrets(destination, deps.secrets),
        timeoutMs,
        allowPrivateNetworks: allowPrivateNetworks(deps.config),
      });
    }
    default:
      return notSent(payload, `destinations of type ${destination.type} are not delivered yet`, { permanent: true });
  }
}
