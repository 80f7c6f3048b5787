import { ConflictError } from '../common/errors';
import type { SecretBox } from '../common/secret-box';
import type { WebhookEndpoint } from './endpoint.entity';

/**
 * The project's system source (docs/operational-events.md) receives no HTTP requests: whatever would
 * send it one, or needs its signing secret, is refused with 409 `system_endpoint`.
 */
export function refuseSystemEndpoint(endpoint: Pick<WebhookEndpoint, 'isSystem'>, action: string): void {
  if (endpoint.isSystem) {
    throw new ConflictError(
      `The system source carries the service's own operational events and receives no HTTP requests: it cannot ${action}.`,
      { system: true },
      'system_endpoint',
    );
  }
}

/** The endpoint's current signing secret, opened; refused for the system source, which has none. */
export function endpointSigningSecret(endpoint: Pick<WebhookEndpoint, 'isSystem' | 'signingSecretEnc'>, secrets: SecretBox, action: string): string {
  refuseSystemEndpoint(endpoint, action);
  return secrets.open(endpoint.signingSecretEnc!);
}
