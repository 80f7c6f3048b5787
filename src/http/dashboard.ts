import fs from 'node:fs';
import path from 'node:path';
import type { Middleware } from 'koa';

/** Paths the API owns: the dashboard never answers for them, not even its index.html fallback. */
const API_PREFIXES = ['/v1', '/graphql', '/hooks', '/healthz', '/readyz', '/metrics', '/docs'];

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
};

/**
 * Only this origin: scripts and styles from the built files (no inline code, no CDN),
 * GraphQL over fetch and WebSocket on the same host ('self' covers ws:/wss: in CSP 3).
 */
export const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** The directory holding package.json, whether this runs from src/ or from the compiled dist/src/. */
export function packageRoot(): string {
  let dir = __dirname;
  while (!fs.existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return dir;
}

/** The built dashboard (`npm run build:dashboard`): RELAY_DASHBOARD_DIR, else dashboard/dist in the package. */
export function dashboardDir(configured: string | undefined): string {
  return configured ? path.resolve(configured) : path.join(packageRoot(), 'dashboard', 'dist');
}

function isApiPath(p: string): boolean {
  return API_PREFIXES.some((prefix) => p === prefix || p.startsWith(`${prefix}/`));
}

/**
 * Serves the dashboard at `/` (to any client, whatever it accepts): its files, and index.html
 * for any other GET that asks for HTML (a browser opening `/events/…`), so client-side routes
 * survive a reload. Other requests that do not ask for HTML fall through to the API's JSON 404. Hashed files under
 * `assets/` are cached for a year; index.html is revalidated every time.
 */
export function dashboardMiddleware(dir: string): Middleware {
  const root = path.resolve(dir);
  const index = path.join(root, 'index.html');
  return async (ctx, next) => {
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || isApiPath(ctx.path)) return next();
    let file: string | undefined;
    let decoded: string;
    try {
      decoded = decodeURIComponent(ctx.path);
    } catch {
      return next();
    }
    const candidate = path.join(root, path.normalize(decoded));
    if (candidate.startsWith(root + path.sep) && (await isFile(candidate))) file = candidate;
    // `/` is the dashboard for every client (curl, a link checker): only its client-side routes need a browser's Accept.
    else if ((ctx.path === '/' || wantsHtml(ctx.get('Accept'))) && (await isFile(index))) file = index;
    if (!file) return next();

    const ext = path.extname(file);
    ctx.type = CONTENT_TYPES[ext] ?? 'application/octet-stream';
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'no-referrer');
    if (file === index) {
      ctx.set('Cache-Control', 'no-cache');
      ctx.set('Content-Security-Policy', DASHBOARD_CSP);
      ctx.set('X-Frame-Options', 'DENY');
    } else {
      const hashed = path.relative(root, file).startsWith(`assets${path.sep}`);
      ctx.set('Cache-Control', hashed ? 'public, max-age=31536000, immutable' : 'public, max-age=300');
    }
    // Koa sends no body for HEAD and destroys the stream when the response finishes.
    ctx.body = fs.createReadStream(file);
    ctx.length = (await fs.promises.stat(file)).size;
  };
}

async function isFile(file: string): Promise<boolean> {
  return fs.promises.stat(file).then((s) => s.isFile(), () => false);
}

/** A browser navigation sends `Accept: text/html,…`; fetch() and API clients send `*\/*` or JSON. */
function wantsHtml(accept: string): boolean {
  return /(^|,)\s*text\/html\s*(;|,|$)/i.test(accept);
}
