import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { CliError } from './cli-errors';

/** The CLI's own PKCE pair (RFC 7636, S256): the challenge goes with sign-in start, the verifier with the exchange. */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

const PAGE = (title: string, text: string) =>
  `<!doctype html><meta charset="utf-8"><title>${title}</title><body style="font-family:sans-serif;margin:3em"><h1>${title}</h1><p>${text}</p></body>`;

/**
 * A one-shot HTTP server on 127.0.0.1 (RFC 8252 loopback redirect): the API's
 * OAuth callback sends the browser to `redirectUri` with a one-time `code`
 * (or an `error`), which `code` resolves with.
 */
export async function startLoopback(timeoutMs = 300_000): Promise<{ redirectUri: string; code: Promise<string>; close(): void }> {
  let settle!: { resolve: (code: string) => void; reject: (err: Error) => void };
  const code = new Promise<string>((resolve, reject) => (settle = { resolve, reject }));
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/callback') {
      res.writeHead(404).end();
      return;
    }
    const given = url.searchParams.get('code');
    const error = url.searchParams.get('error');
    res.writeHead(given ? 200 : 400, { 'content-type': 'text/html; charset=utf-8', connection: 'close' });
    res.end(given ? PAGE('Logged in', 'You can close this tab and go back to the terminal.') : PAGE('Login failed', `The sign-in did not complete${error ? `: ${error}` : ''}.`));
    if (given) settle.resolve(given);
    else settle.reject(new CliError(`OAuth sign-in failed${error ? `: ${error}${url.searchParams.get('error_description') ? ` (${url.searchParams.get('error_description')})` : ''}` : ''}`));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const timer = setTimeout(() => settle.reject(new CliError(`OAuth sign-in timed out after ${Math.round(timeoutMs / 1000)} s: run \`relay login --oauth\` again`)), timeoutMs);
  const close = () => {
    clearTimeout(timer);
    server.closeAllConnections();
    server.close();
  };
  return { redirectUri: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`, code: code.finally(close), close };
}
