import fs from 'node:fs';
import path from 'node:path';
import Router from '@koa/router';
import type { Context } from 'koa';
import { DASHBOARD_CSP } from './dashboard';

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

const INIT = `window.ui = SwaggerUIBundle({
  url: '/v1/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  docExpansion: 'list',
  defaultModelsExpandDepth: 0,
  presets: [SwaggerUIBundle.presets.apis],
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
