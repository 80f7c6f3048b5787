import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import Koa from 'koa';
import { DASHBOARD_CSP, dashboardMiddleware } from './dashboard';

describe('dashboardMiddleware', () => {
  let dir: string;
  let server: http.Server;
  let base: string;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dashboard-test-'));
    fs.mkdirSync(path.join(dir, 'assets'));
    fs.writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>relay</title>');
    fs.writeFileSync(path.join(dir, 'assets', 'index-abc123.js'), 'console.log(1)');
    fs.writeFileSync(path.join(dir, 'robots.txt'), 'User-agent: *');
    fs.writeFileSync(path.join(os.tmpdir(), 'outside-dashboard.txt'), 'secret');
    const app = new Koa();
    app.use(dashboardMiddleware(dir));
    app.use((ctx) => {
      ctx.status = 404;
      ctx.body = { error: { code: 'route_not_found' } };
    });
    server = http.createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(path.join(os.tmpdir(), 'outside-dashboard.txt'), { force: true });
  });

  const browser = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };

  it('serves index.html at / and for client-side routes a browser opens, with the CSP and no caching', async () => {
    for (const p of ['/', '/events/01a2', '/endpoints']) {
      const res = await fetch(base + p, { headers: browser });
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('<title>relay</title>');
      expect(res.headers.get('content-security-policy')).toBe(DASHBOARD_CSP);
      expect(res.headers.get('cache-control')).toBe('no-cache');
    }
  });

  it('answers HEAD like GET, without a body', async () => {
    const res = await fetch(`${base}/assets/index-abc123.js`, { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe(String('console.log(1)'.length));
    expect(await res.text()).toBe('');
  });

  it('caches hashed assets for a year and other files briefly', async () => {
    const asset = await fetch(`${base}/assets/index-abc123.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await fetch(`${base}/robots.txt`)).headers.get('cache-control')).toBe('public, max-age=300');
  });

  it('never answers for API paths, even when a browser asks for HTML', async () => {
    for (const p of ['/v1/events', '/graphql', '/hooks/x', '/healthz', '/readyz', '/metrics', '/v1']) {
      const res = await fetch(base + p, { headers: browser });
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: { code: 'route_not_found' } });
    }
  });

  it('serves the page at / to any client, whatever it accepts (curl, fetch)', async () => {
    for (const accept of ['*/*', 'application/json', '']) {
      const res = await fetch(`${base}/`, { headers: accept ? { accept } : {} });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(await res.text()).toContain('<title>relay</title>');
    }
  });

  it('leaves unknown paths to the API when the client does not ask for HTML (fetch, curl)', async () => {
    const res = await fetch(`${base}/no-such-route`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: { code: 'route_not_found' } });
  });

  it('does not serve files outside its directory', async () => {
    const res = await fetch(`${base}/..%2Foutside-dashboard.txt`);
    expect(res.status).toBe(404);
    expect(await res.text()).not.toContain('secret');
  });

  it('falls through entirely when the dashboard is not built', async () => {
    const app = new Koa();
    app.use(dashboardMiddleware(path.join(dir, 'missing')));
    app.use((ctx) => void (ctx.status = 404));
    const bare = http.createServer(app.callback());
    await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
    const res = await fetch(`http://127.0.0.1:${(bare.address() as AddressInfo).port}/`, { headers: browser });
    expect(res.status).toBe(404);
    await new Promise((resolve) => bare.close(resolve));
  });
});
