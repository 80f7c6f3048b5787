import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { ValidationError } from '../common/errors';
import { findInProject } from '../common/project-scope';
import type { ProjectContext } from '../common/request-context';
import type { SecretBox } from '../common/secret-box';
import { isStandardSecret, type SignatureScheme, STANDARD_KEY_BYTES } from '../sending/signature';
import { Destination } from './destination.entity';

/**
 * Signing-secret rotation and clearing (`POST`/`DELETE /v1/destinations/{id}/signing-secret`,
 * docs/internals/sending.md), and the secrets a delivery signs with. `webhook` deliveries and the
 * forwards of a `relay listen` session's `cli` destination are signed. During an overlap each
 * delivery carries a second signature made with the previous secret, so receivers can switch over.
 */
export const DEFAULT_OVERLAP_SECONDS = 86_400;
export const MAX_OVERLAP_SECONDS = 604_800;
/** As for endpoint secrets (src/endpoints/endpoint-secret.service.ts). */
export const MIN_SIGNING_SECRET_LENGTH = 8;
export const MAX_SIGNING_SECRET_LENGTH = 1024;

/**
 * A generated destination secret: `whsec_` and the standard base64 of 32 random
 * bytes, the form Standard Webhooks libraries read, so it suits either signature scheme.
 */
export function generateDestinationSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

const STANDARD_SECRET_RULE =
  `with signature_scheme standard, the secret is whsec_ followed by the padded base64 of ${STANDARD_KEY_BYTES.min} to ${STANDARD_KEY_BYTES.max} random bytes ` +
  '(e.g. "whsec_$(openssl rand -base64 32)"); omit it to have one generated';

function refuseSecret(message: string): never {
  throw new ValidationError(`Invalid body: signing_secret: ${message}`, { in: 'body', field: 'signing_secret', fields: [{ field: 'signing_secret', message }] });
}

/** Refuses (400 on `signing_secret`) a secret the destination's scheme cannot sign with; any text of 8+ characters suits `service`. */
export function checkSecretForScheme(secret: string, scheme: SignatureScheme): void {
  if (scheme === 'standard' && !isStandardSecret(secret)) refuseSecret(STANDARD_SECRET_RULE);
}

/** `signing_secret` and `signature_scheme` of a create or update input (absent: unchanged; on create, absent secret: generate one). */
export interface SigningInput {
  signing_secret?: string | null;
  signature_scheme?: SignatureScheme;
}

/**
 * Applies the signing fields of a create or update to `d` and answers the secret
 * it generated (to be shown once), if any. A new webhook destination is signed
 * unless `signing_secret` is null. A scheme change cuts over at once (a receiver
 * checks one scheme: the overlap ends) and, when the current secret cannot sign
 * in the new scheme and no secret is given, replaces it with a generated one.
 */
export function applySigning(secrets: SecretBox, d: Destination, input: SigningInput, creating: boolean): string | null {
  const scheme = input.signature_scheme ?? d.signatureScheme;
  const schemeChanged = scheme !== d.signatureScheme;
  if (typeof input.signing_secret === 'string') checkSecretForScheme(input.signing_secret, scheme);
  let generated: string | null = null;
  if (input.signing_secret === undefined) {
    const unusable = !creating && schemeChanged && !!d.signingSecretEnc && scheme === 'standard' && !isStandardSecret(secrets.open(d.signingSecretEnc));
    if ((creating && d.type === 'webhook') || unusable) generated = generateDestinationSecret();
  }
  d.signatureScheme = scheme;
  const secret = generated ?? input.signing_secret;
  if (secret !== undefined) d.signingSecretEnc = secret === null ? null : secrets.seal(secret);
  if (secret !== undefined || schemeChanged) {
    d.previousSigningSecretEnc = null;
    d.previousSecretExpiresAt = null;
  }
  return generated;
}

/** A destination signing secret as accepted on create, update and rotate. */
export const signingSecretSchema = z
  .string({ message: 'must be a string' })
  .min(MIN_SIGNING_SECRET_LENGTH, { message: `must be at least ${MIN_SIGNING_SECRET_LENGTH} characters (32 or more random bytes recommended)` })
  .max(MAX_SIGNING_SECRET_LENGTH, { message: `must be at most ${MAX_SIGNING_SECRET_LENGTH} characters` });

export const rotateDestinationSecretInput = z.object({
  signing_secret: signingSecretSchema,
  overlap_seconds: z
    .number({ message: 'must be an integer number of seconds' })
    .int({ message: 'must be an integer number of seconds' })
    .min(0, { message: 'must be 0 (immediate cutover) or more' })
    .max(MAX_OVERLAP_SECONDS, { message: `must be at most ${MAX_OVERLAP_SECONDS} (7 days)` })
    .optional(),
});
export type RotateDestinationSecretInput = z.infer<typeof rotateDestinationSecretInput>;

/** What the rotate and clear operations answer (the secret itself is never returned). */
export interface DestinationSigningState {
  destination_id: string;
  signing_secret_set: boolean;
  /** When `X-{prefix}-Signature-Previous` stops being sent; null without an overlap. */
  previous_secret_expires_at: string | null;
}

function signingState(destination: Destination): DestinationSigningState {
  return {
    destination_id: destination.id,
    signing_secret_set: !!destination.signingSecretEnc,
    previous_secret_expires_at: destination.previousSecretExpiresAt?.toISOString() ?? null,
  };
}

/** The destination, when its deliveries are signed (`webhook` and `cli`); 400 `signing_not_supported` for chat destinations. */
async function loadSignedDestination(ctx: ProjectContext, destinationId: string): Promise<Destination> {
  const destination = await findInProject(ctx, Destination, 'Destination', destinationId);
  if (destination.type !== 'webhook' && destination.type !== 'cli') {
    throw new ValidationError(
      `Only webhook and cli destinations are signed; destination ${destination.id} is of type ${destination.type}.`,
      { field: 'type', type: destination.type },
      'signing_not_supported',
    );
  }
  return destination;
}

/**
 * Replaces the signing secret. With `overlap_seconds` > 0 (default one day)
 * and a current secret, the current one keeps signing `X-{prefix}-Signature-Previous`
 * until the overlap ends; 0 cuts over at once. Rotating again during an
 * overlap makes the secret being replaced the previous one.
 */
export async function rotateDestinationSecret(
  ctx: ProjectContext,
  destinationId: string,
  input: RotateDestinationSecretInput,
): Promise<DestinationSigningState> {
  const parsed = rotateDestinationSecretInput.safeParse(input ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue.path.join('.') || 'body';
    throw new ValidationError(`Invalid body: ${field}: ${issue.message}`, { field, fields: parsed.error.issues.map((i) => ({ field: i.path.join('.'), message: i.message })) });
  }
  const { signing_secret, overlap_seconds = DEFAULT_OVERLAP_SECONDS } = parsed.data;
  const destination = await loadSignedDestination(ctx, destinationId);
  checkSecretForScheme(signing_secret, destination.signatureScheme);
  const keepPrevious = overlap_seconds > 0 && !!destination.signingSecretEnc;
  destination.previousSigningSecretEnc = keepPrevious ? destination.signingSecretEnc : null;
  destination.previousSecretExpiresAt = keepPrevious ? new Date(Date.now() + overlap_seconds * 1000) : null;
  destination.signingSecretEnc = ctx.container.secrets.seal(signing_secret);
  await ctx.em.flush();
  return signingState(destination);
}

/**
 * Removes signing: later deliveries carry no timestamp or signature headers. A `cli`
 * destination's forwards are always signed (its `relay listen` prints the secret), so
 * clearing one is refused: rotate it instead.
 */
export async function clearDestinationSecret(ctx: ProjectContext, destinationId: string): Promise<DestinationSigningState> {
  const destination = await loadSignedDestination(ctx, destinationId);
  if (destination.type === 'cli') {
    throw new ValidationError(
      `A cli destination's forwards are always signed; rotate destination ${destination.id}'s secret with POST /v1/destinations/{id}/signing-secret instead.`,
      { field: 'type', type: destination.type },
      'signing_required',
    );
  }
  destination.signingSecretEnc = null;
  destination.previousSigningSecretEnc = null;
  destination.previousSecretExpiresAt = null;
  await ctx.em.flush();
  return signingState(destination);
}

/** What a delivery signs with right now: the scheme, the secret, and the previous one while its overlap lasts. */
export function destinationSigningSecrets(
  destination: Pick<Destination, 'signatureScheme' | 'signingSecretEnc' | 'previousSigningSecretEnc' | 'previousSecretExpiresAt'>,
  secrets: SecretBox,
  now: Date = new Date(),
): { scheme: SignatureScheme; secret: string; previousSecret: string | null } | null {
  if (!destination.signingSecretEnc) return null;
  const overlapping =
    !!destination.previousSigningSecretEnc && !!destination.previousSecretExpiresAt && destination.previousSecretExpiresAt.getTime() > now.getTime();
  return {
    scheme: destination.signatureScheme ?? 'service',
    secret: secrets.open(destination.signingSecretEnc),
    previousSecret: overlapping ? secrets.open(destination.previousSigningSecretEnc!) : null,
  };
}
