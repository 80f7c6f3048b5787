import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { signOutbound } from '../../src/sending/signature';
import { type CliRun, runCli, tempConfigHome } from '../cli/cli-process';
import { startReceiver, type Receiver } from '../delivery/receiver';
import { type DashboardEnv, describeInBrowser, graphql, startDashboardEnv } from './browser';

const PASSWORD = 'correct horse battery staple';

/**
 * Issue 27.5: a new user's empty project leads, in one flow, from "no events" to a
 * delivered Test event: a source, a webhook destination (signed by default), the link,
 * Test, and the outcome shown as it lands; then the same flow with `relay listen` as the
 * destination (the real CLI in a child process). Each empty list links to what fills it.
 * Issue 37: a new sign-up lands on the guide; a reload while a secret is shown, or a return through the navigation,
 * goes on where the flow was; an empty Events page offers no bulk retry.
 */
describeInBrowser('dashboard: the guided first run, from an empty project to a delivered event', () => {
  let env: DashboardEnv;
  let receiver: Receiver;
  const email = `first-${Date.now()}@example.test`;
  let destinationSecret = '';
  let listen: CliRun | undefined;
  let laptop: http.Server | undefined;
  const atLaptop: string[] = [];

  beforeAll(async () => {
    receiver = await startReceiver();
    env = await startDashboardEnv();
  }, 180_000);
  afterAll(async () => {
    await listen?.stop();
    await new Promise((resolve) => (laptop ? laptop.close(resolve) : resolve(undefined)));
    await env?.close();
    await receiver?.close();
  });

  const step = (page: Page, n: number) => page.getByTestId(`step-${n}`);

  it('a new account lands on Get started; each empty list links to what fills it, Events to creating a source', async () => {
    const { page } = env;
    await page.goto('/');
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.getByRole('heading', { name: 'Get started' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/start');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Events' }).click();
    const empty = page.locator('.empty');
    await empty.getByRole('link', { name: 'Create a source' }).waitFor();
    expect(await empty.textContent()).not.toMatch(/press Test/i);
    // Nothing to retry in an empty list: no bulk retry offered.
    expect(await page.getByRole('button', { name: 'Retry matching deliveries…' }).count()).toBe(0);
    await env.screenshot('first-run-events-empty');

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Endpoints' }).click();
    await page.locator('.empty').getByRole('link', { name: 'get started' }).waitFor();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Destinations' }).click();
    await page.locator('.empty').getByRole('link', { name: 'get started' }).waitFor();

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Events' }).click();
    await page.locator('.empty').getByRole('link', { name: 'Create a source' }).click();
    await page.getByRole('heading', { name: 'Get started' }).waitFor();
    expect(await step(page, 1).getAttribute('data-state')).toBe('current');
    expect(await step(page, 4).getAttribute('data-state')).toBe('todo');
    await env.screenshot('first-run-start');
  });

  it('source → webhook destination (signed, its secret shown once) → link → Test: the outcome lands as delivered', async () => {
    const { page } = env;
    await step(page, 1).getByLabel('Name', { exact: true }).fill('Orders');
    await step(page, 1).getByRole('button', { name: 'Create source' }).click();
    await step(page, 1).getByTestId('secret-value').waitFor();
    expect(await step(page, 1).getAttribute('data-state')).toBe('current');
    // A reload while the secret is shown: the source was chosen when it was made, the flow goes on at step 2.
    await page.reload();
    await step(page, 1).getByText('receives webhooks at').waitFor();
    expect(await step(page, 1).getAttribute('data-state')).toBe('done');
    expect(await step(page, 2).getAttribute('data-state')).toBe('current');

    await step(page, 2).getByLabel('Name', { exact: true }).fill('My receiver');
    await step(page, 2).getByLabel('Webhook URL').fill(`${receiver.url}/hooks`);
    await step(page, 2).getByRole('button', { name: 'Create destination' }).click();
    destinationSecret = (await step(page, 2).getByTestId('secret-value').textContent()) ?? '';
    expect(destinationSecret).toMatch(/^whsec_/);
    await env.screenshot('first-run-destination-secret');
    await step(page, 2).getByRole('button', { name: 'Done' }).click();

    await step(page, 3).getByRole('button', { name: 'Link Orders → My receiver' }).click();
    await step(page, 3).getByText('go to').waitFor();

    // Away and back through the navigation (no choices in the URL): the flow is where it was, at the test step.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Destinations' }).click();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Get started' }).click();
    await step(page, 4).getByRole('button', { name: 'Send a test event' }).waitFor();
    expect(await step(page, 3).getAttribute('data-state')).toBe('done');

    await step(page, 4).getByRole('button', { name: 'Send a test event' }).click();
    const outcome = page.getByTestId('test-outcome');
    await outcome.locator('[data-outcome=delivered]').waitFor({ timeout: 30_000 });
    await outcome.getByText('Your first event is delivered.').waitFor();
    expect(await outcome.getByTestId('response-from').textContent()).toBe('200 from My receiver');
    expect(await step(page, 4).getAttribute('data-state')).toBe('done');
    await env.screenshot('first-run-delivered');

    // The receiver got it signed with the secret shown once.
    expect(receiver.requests).toHaveLength(1);
    const [got] = receiver.requests;
    const timestamp = Number(got.headers['x-service-timestamp']);
    expect(got.headers['x-service-signature']).toBe(signOutbound(destinationSecret, timestamp, got.body));
    expect(JSON.parse(got.body)).toMatchObject({ type: 'relay.test' });

    // A reload keeps the flow where it is (the choices are in the URL).
    await page.reload();
    await page.getByTestId('test-outcome').locator('[data-outcome=delivered]').waitFor();
    await page.getByTestId('test-outcome').getByRole('link', { name: 'Open the event' }).click();
    await page.getByTestId('event-outcome').locator('[data-outcome=delivered]').waitFor();
  });

  it('at phone width the flow fits the screen', async () => {
    const { page } = env;
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      // The guide remembers the finished flow; Start over walks it again (as with relay listen below).
      await page.goto('/start');
      await step(page, 4).getByTestId('test-outcome').waitFor();
      await page.getByRole('button', { name: 'Start over' }).click();
      await step(page, 1).getByLabel('Name', { exact: true }).waitFor();
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
      await env.screenshot('first-run-phone');
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  it('with relay listen as the destination: the step waits for the CLI, which links itself, and the Test reaches the laptop', async () => {
    const { page } = env;
    laptop = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        atLaptop.push(body);
        res.writeHead(200).end('ok from the laptop');
      });
    });
    await new Promise<void>((resolve) => laptop!.listen(0, '127.0.0.1', resolve));
    const port = (laptop.address() as AddressInfo).port;

    await page.goto('/start');
    await step(page, 1).getByLabel('Or use a source you have').selectOption({ label: 'Orders' });
    await step(page, 2).getByRole('button', { name: 'relay listen on this computer' }).click();
    const commands = (await step(page, 2).locator('pre').textContent()) ?? '';
    expect(commands).toContain(`npx relay login --api-url ${env.baseUrl}`);
    const [, slug] = /npx relay listen 4000 (\S+)/.exec(commands) ?? [];
    expect(slug).toMatch(/^orders/);
    await step(page, 2).getByTestId('listen-waiting').waitFor();
    await env.screenshot('first-run-listen');

    // The CLI as a machine logs in: an API key instead of `relay login`, on the port the laptop's server has.
    const token = (await graphql(env.baseUrl, 'mutation ($e: String!, $p: String!) { login(email: $e, password: $p) { accessToken } }', { e: email, p: PASSWORD })).login.accessToken;
    const key = (await graphql(env.baseUrl, 'mutation { createApiKey(name: "laptop") { key } }', {}, token)).createApiKey.key as string;
    const home = tempConfigHome();
    listen = runCli(['listen', String(port), slug], { XDG_CONFIG_HOME: home.home, RELAY_API_KEY: key, RELAY_API_URL: env.baseUrl });
    await listen.waitFor(/Ready! Forwarding/, 60_000);

    await step(page, 3).getByText('go to').waitFor({ timeout: 30_000 });
    expect(await step(page, 2).getAttribute('data-state')).toBe('done');
    await step(page, 4).getByRole('button', { name: 'Send a test event' }).click();
    const outcome = page.getByTestId('test-outcome');
    await outcome.locator('[data-outcome=delivered]').waitFor({ timeout: 30_000 });
    expect(atLaptop.map((b) => JSON.parse(b).type)).toEqual(['relay.test']);
    await env.screenshot('first-run-listen-delivered');
    home.cleanup();
  });
});
