import { z } from 'zod';
import { NotFoundError, ValidationError } from '../common/errors';
import { isUuid } from '../common/ids';
import type { ProjectContext } from '../common/request-context';
import { randomToken } from '../common/secret-box';
import { notifyEndpointChanged } from '../ingress/endpoint-cache';
import { WebhookEndpoint } from './endpoint.entity';
import { refuseSystemEndpoint } from './system-endpoint';

/**
 * Source (endpoint) signing-secret rotation, docs/ingress.md: during the overlap
 * ingress accepts signatures made with the old or the new secret, for every
 * scheme that verifies one; `overlap_seconds: 0` (the dashboard's
 * "regenerate") cuts the old secret off at once.
 */
export const ENDPOINT_OVERLAP_DEFAULT_SECONDS = 86_400;
export const ENDPOINT_OVERLAP_MAX_SECONDS = 604_800;

/** The body of `POST /v1/endpoints/{id}/signing-secret` (the route documents and checks this same schema). */
export const rotateEndpointSecretInput = z.object({
  // Provider-issued secrets (payments_a, codehost_b tokens) are taken as they come, hence the low minimum.
  signing_secret: z
    .string({ message: 'must be a string' })
    .min(8, { message: 'must be at least 8 characters (32 or more random bytes recommended)' })
    .max(1024, { message: 'must be at most 1024 characters' })
    .optional()
    .describe('The new secret; generated (and shown once) when omitted'),
  overlap_seconds: z
    .number({ message: 'must be an integer number of seconds' })
    .int({ message: 'must be an integer number of seconds' })
    .min(0, { message: 'must be 0 (immediate cutover) or more' })
    .max(ENDPOINT_OVERLAP_MAX_SECONDS, { message: `must be at most ${ENDPOINT_OVERLAP_MAX_SECONDS} (7 days)` })
    .optional()
    .describe('Default 86400, at most 604800; 0 cuts the old secret off at once'),
});
export type RotateEndpointSecretInput = z.infer<typeof rotateEndpointSecretInput>;

export interface RotateEndpointSecretResult {
  /** Only when the secret was generated: shown this once. */
  signing_secret?: string;
  /** When the previous secret stops being accepted; null when it was cut off at once. */
  previous_secret_expires_at: string | null;
}

export function generateEndpointSecret(): string {
  return `whsec_${randomToken(32)}`;
}

export async function rotateEndpointSecret(
  ctx: ProjectContext,
  endpointId: string,
  input: RotateEndpointSecretInput = {},
): Promise<RotateEndpointSecretResult> {
  const parsed = rotateEndpointSecretInput.safeParse(input ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue.path.join('.') || 'body';
    throw new ValidationError(`Invalid body: ${field}: ${issue.message}`, { field });
  }
  const { signing_secret, overlap_seconds = ENDPOINT_OVERLAP_DEFAULT_SECONDS } = parsed.data;
  const endpoint = isUuid(endpointId) ? await ctx.em.findOne(WebhookEndpoint, { id: endpointId, project: ctx.project.id }) : null;
  if (!endpoint) throw new NotFoundError('Endpoint', endpointId);
  refuseSystemEndpoint(endpoint, 'have a signing secret');

  const secret = signing_secret ?? generateEndpointSecret();
  const expiresAt = overlap_seconds > 0 ? new Date(Date.now() + overlap_seconds * 1000) : null;
  endpoint.previousSigningSecretEnc = expiresAt ? endpoint.signingSecretEnc : null;
  endpoint.previousSecretExpiresAt = expiresAt;
  endpoint.signingSecretEnc = ctx.container.secrets.seal(secret);
  await ctx.em.transactional(async (em) => {
    await em.flush();
    await notifyEndpointChanged(em, endpoint.id);
  });
  return {
    ...(signing_secret === undefined ? { signing_secret: secret } : {}),
    previous_secret_expires_at: expiresAt ? expiresAt.toISOString() : null,
  };
}
