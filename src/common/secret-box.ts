import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { EncryptionKey } from '../config/config';

/**
 * AES-256-GCM encryption for secrets at rest (signing secrets, webhook URLs,
 * bot tokens, OAuth tokens). The stored form names the key that sealed it,
 * `v1.<kid>.<iv>.<tag>.<ciphertext>` (base64url parts), so keys can rotate:
 * the first configured key encrypts, any configured key decrypts.
 */
export class SecretBox {
  private readonly byId: Map<string, Buffer>;

  constructor(private readonly keys: EncryptionKey[]) {
    if (keys.length === 0) throw new Error('SecretBox needs at least one encryption key');
    this.byId = new Map(keys.map((k) => [k.id, k.key]));
  }

  seal(plaintext: string): string {
    const { id, key } = this.keys[0];
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from(id));
    const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v1', id, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.');
  }

  open(sealed: string): string {
    const [version, id, iv, tag, ct] = sealed.split('.');
    const key = this.byId.get(id);
    if (version !== 'v1' || !key || !iv || !tag || ct === undefined) {
      throw new Error(`cannot decrypt secret: unknown format or key id "${id ?? ''}"`);
    }
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(id));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
  }

  openOptional(sealed: string | null | undefined): string | null {
    return sealed ? this.open(sealed) : null;
  }

  /** True when the value was sealed with a key other than the current one. */
  needsReseal(sealed: string): boolean {
    return sealed.split('.')[1] !== this.keys[0].id;
  }
}

/** One-way hash for API keys and refresh tokens: high-entropy values, so a plain SHA-256 suffices. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Lowercase hex HMAC-SHA256 of the parts, in order: the one signature primitive of ingress and outbound signing. */
export function hmacHex(secret: string, ...parts: Array<string | Buffer>): string {
  const hmac = createHmac('sha256', secret);
  for (const part of parts) hmac.update(part);
  return hmac.digest('hex');
}

export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

export function constantTimeEqual(a: string | Buffer, b: string | Buffer): boolean {
  const ab = Buffer.isBuffer(a) ? a : Buffer.from(a);
  const bb = Buffer.isBuffer(b) ? b : Buffer.from(b);
  // Compare equal-length digests so that the length itself does not leak through timing.
  const da = createHash('sha256').update(ab).digest();
  const db = createHash('sha256').update(bb).digest();
  return timingSafeEqual(da, db) && ab.length === bb.length;
}
