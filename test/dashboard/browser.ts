import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { type ServiceProcess, startServiceProcess } from '../support/service-process';
import { createTestDatabase, type TestDatabase } from '../support/test-env';

const REPO = path.resolve(__dirname, '..', '..');
const SCREENSHOTS = path.join(REPO, 'docs', 'screenshots');

/** CHROMIUM_PATH, else Debian's /usr/bin/chromium; null when neither exists (the suite then skips, saying why). */
export function chromiumPath(): string | null {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter((p): p is string => !!p);
  return candidates.find((p) => fs.existsSync(p)) ?? null;
}

/** `describe` when a chromium binary exists, else `describe.skip` with the reason printed once. */
export function describeInBrowser(name: string, fn: () => void): void {
  if (chromiumPath()) return describe(name, fn);
  process.stderr.write(`skipping "${name}": no chromium binary (set CHROMIUM_PATH or apt-get install chromium)\n`);
  describe.skip(name, fn);
}

/** What the page received: HTTP response bodies and WebSocket frames (subscriptions). */
export interface Received {
  kind: 'http' | 'ws';
  url: string;
  method?: string;
  status?: number;
  /** For GraphQL over HTTP: the operation name of the request. */
  operation?: string;
  body: string;
}

export interface DashboardEnv {
  service: ServiceProcess;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  baseUrl: string;
  /** The service's database, for fixtures too large to make through the API. */
  databaseUrl: string;
  received: Received[];
  /** Fails listing every received body (but those `allowed` lets through) that contains one of the values. */
  expectNotReceived(values: string[], allowed?: (r: Received) => boolean): void;
  /** GraphQL errors the API answered the page with for the given codes (e.g. insufficient_role). */
  refusals(codes?: string[]): Received[];
  /**
   * Restarts the service on the same port and database: `graceful` (SIGINT) or `kill` (SIGKILL,
   * as a crash); `meanwhile` runs while it is down. `service` then names the new process.
   */
  restartService(mode: 'graceful' | 'kill', meanwhile?: () => Promise<void>): Promise<void>;
  /** Writes docs/screenshots/<name>.png. */
  screenshot(name: string, page?: Page): Promise<void>;
  close(): Promise<void>;
}

/** Builds the dashboard into a temporary directory (RELAY_DASHBOARD_DIR), as `relay build-dashboard` does. */
function buildDashboard(): string {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-dashboard-'));
  const result = spawnSync(process.execPath, [path.join(REPO, 'bin', 'relay.js'), 'build-dashboard'], {
    cwd: REPO,
    env: { ...process.env, RELAY_DASHBOARD_DIR: out },
    stdio: 'inherit',
  });
  // Vite's output (with the gzipped size) goes straight to the test run's output.
  if (result.status !== 0) throw new Error(`dashboard build failed (exit ${result.status})`);
  return out;
}

/**
 * The service as a user starts it (`relay start`, like test/e2e/), serving a fresh build of the
 * dashboard, and a headless chromium page that records every response and WebSocket frame it gets.
 */
export async function startDashboardEnv(
  opts: { viewport?: { width: number; height: number }; port?: number; env?: Record<string, string> } = {},
): Promise<DashboardEnv> {
  const executablePath = chromiumPath();
  if (!executablePath) throw new Error('no chromium binary');
  const dashboardDir = buildDashboard();
  let db: TestDatabase | undefined;
  let service: ServiceProcess | undefined;
  let browser: Browser | undefined;
  const serviceEnv = { RELAY_DASHBOARD_DIR: dashboardDir, LOG_LEVEL: 'error', ...opts.env };
  try {
    db = await createTestDatabase();
    service = await startServiceProcess({ databaseUrl: db.url, port: opts.port, env: serviceEnv });
    browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  } catch (err) {
    await browser?.close();
    await service?.stop();
    await db?.drop();
    throw err;
  }
  const context = await browser.newContext({ viewport: opts.viewport ?? { width: 1280, height: 800 }, baseURL: service.baseUrl });
  context.setDefaultTimeout(15_000);
  const received: Received[] = [];
  const pending: Promise<void>[] = [];
  context.on('response', (response) => {
    const request = response.request();
    let operation: string | undefined;
    try {
      operation = (request.postDataJSON() as { operationName?: string } | null)?.operationName;
    } catch {
      /* not JSON */
    }
    pending.push(
      response.text().then(
        (body) => void received.push({ kind: 'http', url: response.url(), method: request.method(), status: response.status(), operation, body }),
        () => undefined,
      ),
    );
  });
  context.on('page', (p) => watchSockets(p, received));
  const page = await context.newPage();
  watchSockets(page, received);
  const settle = () => Promise.all(pending.splice(0));
  const env: DashboardEnv = {
    service,
    browser,
    context,
    page,
    baseUrl: service.baseUrl,
    databaseUrl: db!.url,
    received,
    expectNotReceived(values, allowed = () => false) {
      const leaks = received
        .filter((r) => !allowed(r))
        .flatMap((r) => values.filter((v) => v && r.body.includes(v)).map((value) => ({ value, url: r.url, operation: r.operation, body: r.body.slice(0, 200) })));
      expect(leaks).toEqual([]);
    },
    async restartService(mode, meanwhile) {
      const old = service!;
      if (mode === 'kill') old.child.kill('SIGKILL');
      await old.stop();
      await meanwhile?.();
      service = await startServiceProcess({ databaseUrl: db!.url, port: Number(new URL(old.baseUrl).port), taskQueue: old.taskQueue, env: serviceEnv });
      env.service = service;
    },
    refusals(codes = ['forbidden', 'insufficient_role', 'unauthenticated']) {
      return received.filter((r) => r.body.includes('"errors"') && codes.some((c) => r.body.includes(`"code":"${c}"`)));
    },
    async screenshot(name, target = page) {
      fs.mkdirSync(SCREENSHOTS, { recursive: true });
      await target.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: false });
    },
    async close() {
      // A response cut by a killed API process may never finish its body: do not wait for it forever.
      await Promise.race([settle(), new Promise((resolve) => setTimeout(resolve, 5000))]);
      await Promise.race([browser!.close(), new Promise((resolve) => setTimeout(resolve, 20_000))]);
      await service!.stop();
      await db!.drop();
      fs.rmSync(dashboardDir, { recursive: true, force: true });
    },
  };
  return env;
}

function watchSockets(page: Page, received: Received[]): void {
  page.on('websocket', (ws) => {
    ws.on('framereceived', (frame) => received.push({ kind: 'ws', url: ws.url(), body: String(frame.payload) }));
  });
}

/** Logs `page` in through the sign-in form and waits for the Events page. */
export async function logIn(page: Page, email: string, password: string): Promise<void> {
  await page.goto('/');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('heading', { name: 'Events' }).waitFor();
}

/** A new account through the API; answers its access token. */
export async function signUpThroughApi(baseUrl: string, email: string, password: string): Promise<string> {
  const session = await graphql(baseUrl, 'mutation ($i: SignupInput!) { signup(input: $i) { accessToken } }', { i: { email, password } });
  return session.signup.accessToken as string;
}

/** The access token the page holds is in memory only: the tests use their own session for setup through the API. */
export async function graphql<T = any>(baseUrl: string, query: string, variables: Record<string, unknown> = {}, token?: string): Promise<T> {
  const res = await fetch(`${baseUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await res.json()) as { data?: T; errors?: unknown[] };
  if (body.errors) throw new Error(`GraphQL error: ${JSON.stringify(body.errors)}`);
  return body.data as T;
}
