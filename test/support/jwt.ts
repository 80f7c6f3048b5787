import crypto, { type KeyObject } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** An RSA signing key and the key id its tokens and its JWKS entry carry. */
export interface SigningKey {
  kid: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
}

export function makeSigningKey(kid: string): SigningKey {
  const { privateKey, publicKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { kid, privateKey, publicKey };
}

const base64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** An RS256 JWT (what Temporal's default claim mapper reads); `claims` may override `iat`/`exp`. */
export function signJwt(key: SigningKey, claims: Record<string, unknown>): string {
  const now = Math.floor(Date.now() / 1000);
  const header = base64url({ alg: 'RS256', typ: 'JWT', kid: key.kid });
  const payload = base64url({ iat: now, exp: now + 3600, ...claims });
  const signature = crypto.sign('sha256', Buffer.from(`${header}.${payload}`), key.privateKey).toString('base64url');
  return `${header}.${payload}.${signature}`;
}

/** Serves `{ keys: [...] }` with the public keys at `<url>` (any path) over plain HTTP on loopback. */
export async function serveJwks(keys: SigningKey[]): Promise<{ url: string; close(): Promise<void> }> {
  const body = JSON.stringify({ keys: keys.map((k) => ({ ...k.publicKey.export({ format: 'jwk' }), kid: k.kid, alg: 'RS256', use: 'sig' })) });
  const server = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/jwks.json`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
