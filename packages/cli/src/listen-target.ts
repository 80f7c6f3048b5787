import net from 'node:net';
import { CliError, EXIT } from './cli-errors';
import type { CliForward } from './local-forwarder';
import { parseForwardPath, parsePort } from './local-forwarder';

/**
 * Where `relay listen` sends events: a port on this machine or a URL (a
 * non-loopback host only with --allow-external), with per-kind paths
 * (`--route <event type or source>=<path>`) and extra headers (`--header`).
 */
export interface ListenTarget {
  /** `http://localhost:4000`: scheme, host and port, no path. */
  origin: string;
  /** The path (and query) events go to when no route matches. */
  path: string;
  host: string;
  port: number;
}

export interface Route {
  /** An event type or a source slug. */
  match: string;
  path: string;
}

const usage = (message: string) => new CliError(message, EXIT.usage);

/** Loopback names and addresses: this machine. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** `<port>` (with --path) or a full http(s) URL; another machine only with `allowExternal`. */
export function parseTarget(arg: string, opts: { path?: string; allowExternal?: boolean } = {}): ListenTarget {
  if (!arg.includes('://')) {
    const port = parsePort(arg);
    return { origin: `http://localhost:${port}`, path: parseForwardPath(opts.path ?? '/'), host: 'localhost', port };
  }
  let url: URL;
  try {
    url = new URL(arg);
  } catch {
    throw usage(`invalid target "${arg}": give a port (4000) or a URL (http://localhost:4000/webhooks)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw usage(`invalid target "${arg}": only http:// and https:// URLs`);
  if (url.username || url.password || url.hash) throw usage(`invalid target "${arg}": no credentials or #fragment in the URL (use --header for credentials)`);
  if (opts.path !== undefined) throw usage('--path goes with a port; with a URL, put the path in the URL');
  if (!isLoopbackHost(url.hostname) && !opts.allowExternal) {
    throw usage(`"${url.hostname}" is not this machine: add --allow-external to forward events to ${url.origin}`);
  }
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  return { origin: url.origin, path: `${url.pathname}${url.search}`, host: url.hostname.replace(/^\[(.*)\]$/, '$1'), port };
}

/** `--route push=/github`: `<event type or source slug>=<path>`. */
export function parseRoute(value: string): Route {
  const at = value.indexOf('=');
  const match = at > 0 ? value.slice(0, at).trim() : '';
  if (!match || at === value.length - 1) throw usage(`invalid route "${value}": give <event type or source>=<path>, e.g. --route push=/github`);
  return { match, path: parseForwardPath(value.slice(at + 1)) };
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** `--header 'Authorization: Bearer x'` (also `K=V`): the name is a token, the value has no line break. */
export function parseHeader(value: string): [string, string] {
  const at = value.search(/[:=]/);
  const name = at > 0 ? value.slice(0, at).trim() : '';
  const text = at > 0 ? value.slice(at + 1).trim() : '';
  if (!TOKEN.test(name) || /[\r\n\0]/.test(text)) throw usage(`invalid header "${value}": give Name: value, e.g. --header 'Authorization: Bearer dev'`);
  return [name.toLowerCase(), text];
}

/** The path for one event: the first route naming its type, else its source, else the target's path. */
export function routePath(routes: Route[], forward: Pick<CliForward, 'eventType' | 'sourceSlug'>, fallback: string): string {
  return (routes.find((r) => r.match === forward.eventType) ?? routes.find((r) => r.match === forward.sourceSlug))?.path ?? fallback;
}

/** Does something accept TCP connections at the target (within 1 s)? */
export function isListening(target: Pick<ListenTarget, 'host' | 'port'>, timeoutMs = 1_000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: target.host, port: target.port });
    const done = (up: boolean) => {
      socket.destroy();
      resolve(up);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

export const nothingListening = (target: ListenTarget) => `nothing is listening on ${target.origin}: start your server, or use a URL`;
