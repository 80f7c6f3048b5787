/**
 * What the neutral provider tokens stand for (the project keeps brand names off the wire), shown beside each token, and how each endpoint provider signs a request.
 * Destination types describe the message they send instead (the API's destinationPlatforms).
 */
export const PROVIDER_DESCRIPTIONS: Record<string, string> = {
  codehost_a: 'code host A (signs with X-Hub-Signature-256)',
  codehost_b: 'code host B (sends its token in X-CodehostB-Token)',
  codehost_c: 'code host C (X-Hub-Signature-256)',
  chat_a: 'chat platform A (signed request with a timestamp)',
  chat_b: 'chat platform B (servers and channels)',
  chat_c: 'chat platform C (chats; HTML messages)',
  tracker_a: 'issue tracker A (JWT bearer token)',
  tracker_b: 'issue tracker B (hex HMAC signature)',
  payments_a: 'payments provider A (timestamped signature)',
};

/** `token — what it stands for`, for selects and labels. */
export function providerLabel(token: string): string {
  const description = PROVIDER_DESCRIPTIONS[token];
  return description ? `${token} — ${description}` : token;
}

const HMAC = (message: string) => `$(printf '%s' "${message}" | openssl dgst -sha256 -hmac "$SECRET" | sed 's/^.* //')`;

/**
 * A ready-to-paste shell snippet that sends a correctly signed JSON POST to the ingress URL in
 * the endpoint's own scheme (src/ingress/auth.ts). `tracker_a` (a JWT) uses X-Hub-Signature-256,
 * which every endpoint accepts.
 */
export function signedCurl(ingressUrl: string, provider: string | null): string {
  const head = [`SECRET='paste the endpoint signing secret here'`, `BODY='{"hello":"world"}'`];
  const send = (headers: string[]) =>
    [`curl -sS -X POST '${ingressUrl}'`, `-H 'Content-Type: application/json'`, ...headers.map((h) => `-H "${h}"`), `--data-raw "$BODY"`].join(' \\\n  ');
  switch (provider) {
    case 'chat_a':
      return [...head, 'TS=$(date +%s)', `SIG=${HMAC('v0:$TS:$BODY')}`, send(['X-ChatA-Request-Timestamp: $TS', 'X-ChatA-Signature: v0=$SIG'])].join('\n');
    case 'codehost_b':
      return [...head, send(['X-CodehostB-Token: $SECRET'])].join('\n');
    case 'tracker_b':
      return [...head, `SIG=${HMAC('$BODY')}`, send(['TrackerB-Signature: $SIG'])].join('\n');
    case 'payments_a':
      return [...head, 'TS=$(date +%s)', `SIG=${HMAC('$TS.$BODY')}`, send(['PaymentsA-Signature: t=$TS,v1=$SIG'])].join('\n');
    default:
      return [...head, `SIG=${HMAC('$BODY')}`, send(['X-Hub-Signature-256: sha256=$SIG'])].join('\n');
  }
}
