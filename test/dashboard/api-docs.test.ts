import path from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { rest, startTestApi, type TestApi } from '../support/api';
import { chromiumPath, type DashboardEnv, describeInBrowser, logIn, signUpThroughApi, startDashboardEnv } from './browser';

const SCREENSHOT = path.resolve(__dirname, '..', '..', 'docs', 'screenshots', 'api-docs.png');

/** `/docs`: the API reference renders every tag of /v1/openapi.json from files the API serves itself, under its CSP. */
describeInBrowser('the API reference at /docs', () => {
  let api: TestApi;
  let browser: Browser;

  beforeAll(async () => {
    api = await startTestApi();
    browser = await chromium.launch({ executablePath: chromiumPath()!, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
    await api?.close();
  });

  it('renders every tag of the document, loading nothing from another origin and breaking no CSP rule', async () => {
    const doc = (await rest(api.baseUrl, 'GET', '/v1/openapi.json')).body as { paths: Record<string, Record<string, { tags: string[] }>> };
    const tags = [...new Set(Object.values(doc.paths).flatMap((ops) => Object.values(ops).flatMap((op) => op.tags)))].sort();
    expect(tags.length).toBeGreaterThan(10);

    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems: string[] = [];
    const origins = new Set<string>();
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('request', (r) => origins.add(new URL(r.url()).origin));
    const res = await page.goto(`${api.baseUrl}/docs`);
    expect(res?.status()).toBe(200);
    expect(res?.headers()['content-security-policy']).toContain("script-src 'self'");
    await page.waitForSelector('.opblock-tag', { timeout: 30_000 });
    const shown = await page.$$eval('.opblock-tag', (els) => els.map((e) => e.getAttribute('data-tag')));
    expect([...shown].sort()).toEqual(tags);
    await page.screenshot({ path: SCREENSHOT, fullPage: false });
    // Operations of a tag open and show their named schemas.
    await page.click('#operations-endpoints-postV1Endpoints .opblock-summary');
    await page.waitForSelector('#operations-endpoints-postV1Endpoints .opblock-section-request-body', { timeout: 30_000 });
    // Its example body reads as one: not random characters made from the no-NUL pattern every input string carries.
    const example = JSON.parse(await page.locator('#operations-endpoints-postV1Endpoints .opblock-section-request-body .microlight').first().innerText()) as Record<string, unknown>;
    expect(example).toMatchObject({ name: 'string', signing_secret: expect.stringMatching(/^(string)+/), provider_repo: 'string', oauth_connection_id: '3fa85f64-5717-4562-b3fc-2c963f66afa6' });
    expect(example.slug).toMatch(/^[a-z0-9-]+$/);
    expect(problems).toEqual([]);
    expect([...origins].filter((o) => o !== api.baseUrl && o !== 'null' && !o.startsWith('data:'))).toEqual([]);
    await page.close();
  });

  it('serves only its own files: other paths under /docs are 404, never the dashboard', async () => {
    expect((await rest(api.baseUrl, 'GET', '/docs/package.json')).status).toBe(404);
    expect((await rest(api.baseUrl, 'GET', '/docs/..%2Fpackage.json')).status).toBe(404);
  });
});

describeInBrowser('the dashboard links to the API reference', () => {
  let env: DashboardEnv;

  beforeAll(async () => {
    env = await startDashboardEnv();
  }, 180_000);
  afterAll(() => env?.close());

  it('opens /docs from the navigation', async () => {
    const email = `docs-${Date.now()}@example.test`;
    await signUpThroughApi(env.baseUrl, email, 'correct horse battery staple');
    await logIn(env.page, email, 'correct horse battery staple');
    await env.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API reference' }).click();
    await env.page.waitForSelector('.opblock-tag', { timeout: 30_000 });
    expect(new URL(env.page.url()).pathname).toBe('/docs');
  });
});
