import fs from 'node:fs';
import path from 'node:path';
import Router from '@koa/router';
import type { Context } from 'koa';
import { DASHBOARD_CSP } from './dashboard';
import { NO_NUL } from './openapi';

/**
 * The API reference at `/docs`: Swagger UI over `/v1/openapi.json`. Its files come from the
 * `swagger-ui-dist` package in node_modules (no CDN); the page's own script is a file too, so the
 * page runs under the dashboard's strict Content-Security-Policy: scripts, styles, fonts and requests
 * from this origin only (inline `data:` images are Swagger UI's icons).
 */

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Webhook relay API reference</title>
  <link rel="stylesheet" href="/docs/swagger-ui.css">
  <link rel="icon" type="image/png" href="/docs/favicon-32x32.png">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>
`;

/**
 * Swagger UI makes the example values of request bodies from patterns, as random characters, and every input string of
 * the document carries one (NO_NUL: a NUL character is refused), as does every UUID and timestamp (the regex of its
 * format). The page leaves those patterns out of what it renders (/v1/openapi.json keeps them; the format stays shown),
 * so that examples read "string", a UUID, a timestamp. Fields with a pattern of their own keep it.
 */
const INIT = `const NO_NUL = ${JSON.stringify(NO_NUL)};
const readable = (node) => {
  if (Array.isArray(node)) return node.map(readable).filter((s) => !(s && typeof s === 'object' && Object.keys(s).length === 0));
  if (!node || typeof node !== 'object') return node;
  const out = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'pattern' && (value === NO_NUL || typeof node.format === 'string')) continue;
    const kept = readable(value);
    if ((key === 'propertyNames' || key === 'allOf') && Object.keys(kept).length === 0) continue;
    out[key] = kept;
  }
  return out;
};
window.ui = SwaggerUIBundle({
  url: '/v1/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  docExpansion: 'list',
  defaultModelsExpandDepth: 0,
  presets: [SwaggerUIBundle.presets.apis],
  responseInterceptor: (res) => {
    if (res.ok && new URL(res.url, location.href).pathname === '/v1/openapi.json') res.text = JSON.stringify(readable(JSON.parse(res.text)));
    return res;
  },
});
`;

/** The package's files /docs serves, with their types; nothing else of node_modules is reachable. */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

export function apiDocsRouter(): Router {
  const dir = path.dirname(require.resolve('swagger-ui-dist/package.json'));
  const router = new Router();
  const common = (ctx: Context, type: string) => {
    ctx.type = type;
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'no-referrer');
  };
  router.get('/docs', (ctx) => {
    common(ctx, 'text/html; charset=utf-8');
    ctx.set('Content-Security-Policy', DASHBOARD_CSP);
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set('Cache-Control', 'no-cache');
    ctx.body = PAGE;
  });
  router.get('/docs/init.js', (ctx) => {
    common(ctx, 'text/javascript; charset=utf-8');
    ctx.set('Cache-Control', 'no-cache');
    ctx.body = INIT;
  });
  router.get('/docs/:file', async (ctx, next) => {
    const type = ASSETS[ctx.params.file];
    if (!type) return next();
    common(ctx, type);
    ctx.set('Cache-Control', 'public, max-age=3600');
    const file = path.join(dir, ctx.params.file);
    ctx.body = fs.createReadStream(file);
    ctx.length = (await fs.promises.stat(file)).size;
  });
  return router;
}
