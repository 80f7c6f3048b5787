import type { Page } from 'playwright-core';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { type ReceivedRequest, startReceiver, type Receiver } from '../delivery/receiver';
import { type DashboardEnv, describeInBrowser, graphql, startDashboardEnv } from './browser';

const PASSWORD = 'correct horse battery staple';

/**
 * The resource pages of issue 10 in a real browser against the service as a user starts it:
 * template preview, transform errors with their position, a failing destination going
 * retrying → failed → dead letter → replayed, metrics charts, API keys, and a viewer who sees
 * no write button and whom the API refuses anyway.
 */
describeInBrowser('dashboard pages: templates, transforms, destinations, dead letters, metrics, members, API keys', () => {
  let env: DashboardEnv;
  let receiver: Receiver;
  let token = '';
  let projectId = '';
  let endpointId = '';
  let createdSecret = '';
  let destinationSecret = '';
  let apiKey = '';
  const email = `owner-${Date.now()}@example.test`;
  const viewerEmail = `viewer-${Date.now()}@example.test`;

  const gqlAsOwner = <T = any>(query: string, variables: Record<string, unknown> = {}) => graphql<T>(env.baseUrl, query, { p: projectId, ...variables }, token);
  const nav = (page: Page, label: string) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: label, exact: true }).click();

  beforeAll(async () => {
    receiver = await startReceiver();
    // The receiver fails until the test says otherwise.
    receiver.respond = () => ({ status: 500, body: 'receiver down' });
    // chat_b's bot-token sends are set up on this server, chat_a's and chat_c's are not.
    env = await startDashboardEnv({ env: { CHAT_B_API_BASE_URL: 'http://127.0.0.1:9/chat-b' } });
    const session = await graphql(env.baseUrl, 'mutation ($i: SignupInput!) { signup(input: $i) { accessToken } }', { i: { email, password: PASSWORD, name: 'Olivia Owner' } });
    token = session.signup.accessToken;
    projectId = (await graphql(env.baseUrl, '{ projects { data { id } } }', {}, token)).projects.data[0].id;
    endpointId = (await gqlAsOwner('mutation ($p: ID) { createEndpoint(projectId: $p, input: { name: "Orders" }) { id } }')).createEndpoint.id;
  }, 180_000);
  afterAll(async () => {
    await env?.close();
    await receiver?.close();
  });

  it('logs in and shows the empty states of the new pages', async () => {
    const { page } = env;
    await page.goto('/');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { name: 'Events' }).waitFor();
    for (const [label, empty] of [
      ['Destinations', 'No destinations yet'],
      ['Templates', 'No templates yet'],
      ['Transforms', 'No transforms yet'],
      ['API keys', 'No API keys yet'],
    ]) {
      await nav(page, label);
      await page.getByText(empty).waitFor();
    }
  });

  it('a template preview renders as you type, and a template error names its place', async () => {
    const { page } = env;
    await nav(page, 'Templates');
    await page.getByPlaceholder('Name, e.g. Pull requests').fill('Pull requests');
    await page.getByRole('button', { name: 'Create and edit' }).click();
    const chatB = page.getByTestId('preview-chat_b');
    // The starter config against the sample payload (no event type: the title starts with " on").
    await chatB.getByText(/"title": "\s*on relay"/).waitFor();
    await page.getByRole('checkbox', { name: 'chat_c' }).check();
    await page.getByTestId('preview-chat_c').getByText(/"parse_mode": "HTML"/).waitFor();
    const config = page.getByLabel('Template config');
    await config.fill(JSON.stringify({ title: '{{ .Payload.sender.login | upper }} did {{ .Payload.action }}' }, null, 2));
    await chatB.getByText('"title": "OCTO did opened"').waitFor();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved.').waitFor();
    await env.screenshot('template-editor');
    await config.fill(JSON.stringify({ title: '{{ .Payload.action | shout }}' }));
    await page.getByRole('alert').filter({ hasText: 'unknown function "shout"' }).getByText('title').waitFor();
    // Saving the broken config is refused by the API; the message shows beside the field.
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText(/shout/).first().waitFor();
  });

  it('a transform runs against a stored event and shows an error with its position', async () => {
    const { page } = env;
    await gqlAsOwner('mutation ($p: ID, $e: ID!) { sendTestEvent(projectId: $p, endpointId: $e) { eventId } }', { e: endpointId });
    await nav(page, 'Transforms');
    await page.getByPlaceholder('Name, e.g. Slim push').fill('Slim');
    await page.getByRole('button', { name: 'Create and edit' }).click();
    const runAgainst = page.getByRole('combobox', { name: 'Run against' });
    await runAgainst.locator('option').nth(1).waitFor({ state: 'attached' });
    await runAgainst.selectOption({ index: 1 });
    // The input pane shows the stored event the expression runs against (the Test event's body).
    await page.getByTestId('preview-input').getByText('"type": "relay.test"').waitFor();
    const expression = page.getByLabel('Expression');
    await expression.fill('{ "keys": $keys($) }');
    await page.getByRole('region', { name: 'Result' }).getByText('"keys"').waitFor();
    await expression.fill('{\n  "total": $sum(items.price) +\n}');
    const pointer = page.getByTestId('error-pointer');
    await pointer.waitFor();
    await page.getByTestId('transform-error').getByText(/at line 3, column/).waitFor();
    await env.screenshot('transform-editor');

    // The template editor previews through the saved transform (the starter expression), as a link would.
    await nav(page, 'Templates');
    await page.getByRole('link', { name: 'Pull requests' }).click();
    await page.getByLabel('Template config').fill(JSON.stringify({ title: '{{ .Payload.who }} in {{ .Payload.repo }}' }));
    await page.getByRole('combobox', { name: 'Transform first' }).selectOption({ label: 'Slim' });
    await page.getByTestId('preview-chat_b').getByText('"title": "octo in relay"').waitFor();
  });

  it('creates a webhook destination signed by default (its secret shown once), rotates the secret and links it', async () => {
    const { page } = env;
    await nav(page, 'Destinations');
    await page.getByRole('button', { name: 'New destination' }).click();
    const form = page.getByRole('form', { name: 'New destination' });
    // Types say what their receiver gets; one this server cannot send is offered disabled, naming the setting.
    const type = form.getByRole('combobox', { name: 'Type', exact: true });
    await form.getByTestId('platforms-unconfigured').getByText(/CHAT_C_API_BASE_URL, which this server does not set/).waitFor();
    expect(await form.getByTestId('platforms-unconfigured').textContent()).toContain('chat_a bot-token sends need CHAT_A_API_BASE_URL');
    expect(await form.getByTestId('platforms-unconfigured').textContent()).not.toContain('CHAT_B_API_BASE_URL');
    const options = [];
    for (const option of await type.locator('option').all()) options.push({ text: await option.textContent(), disabled: await option.isDisabled() });
    expect(options).toEqual([
      { text: expect.stringMatching(/^webhook — .*JSON/), disabled: false },
      { text: expect.stringMatching(/^chat_a — .*blocks/), disabled: false },
      { text: expect.stringMatching(/^chat_b — .*embed/), disabled: false },
      { text: 'chat_c — chat platform C: an HTML message (needs CHAT_C_API_BASE_URL)', disabled: true },
    ]);
    // chat_a posts to a webhook URL here; its bot token needs the setting, so that field is off and says why.
    await type.selectOption('chat_a');
    expect(await form.getByLabel('Bot token').isDisabled()).toBe(true);
    await form.getByText('chat_a bot-token sends need CHAT_A_API_BASE_URL, which this server does not set; webhook URLs work without it.').first().waitFor();
    await env.screenshot('destination-platforms');
    await type.selectOption('chat_b');
    expect(await form.getByLabel('Bot token').isDisabled()).toBe(false);
    await type.selectOption('webhook');
    await form.getByLabel('Name').fill('Flaky receiver');
    // A URL the browser accepts and the API does not (http(s) only).
    await form.getByLabel('Webhook URL').fill('ftp://example.com/hook');
    await form.getByRole('button', { name: 'Create' }).click();
    // The API's message for the field, under the field.
    await form.locator('.field-error').first().waitFor();
    await form.getByLabel('Webhook URL').fill(receiver.url);
    await form.getByLabel('Max attempts').fill('2');
    await form.getByLabel('Backoff (seconds)').fill('1');
    expect(await form.getByLabel('Signing').inputValue()).toBe('service');
    await form.getByRole('button', { name: 'Create' }).click();
    // Signed by default: the API generated the secret, shown once in place of the form.
    const created = page.getByRole('region', { name: 'New destination' });
    await created.getByRole('heading', { name: 'Created Flaky receiver' }).waitFor();
    createdSecret = (await created.getByTestId('secret-value').textContent()) ?? '';
    expect(createdSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    await env.screenshot('destination-created');
    await created.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('heading', { name: /Flaky receiver/ }).waitFor();
    await page.getByText('Deliveries are signed').waitFor();
    expect(await page.getByTestId('secret-value').count()).toBe(0);
    await page.getByRole('button', { name: 'Rotate' }).click();
    destinationSecret = (await page.getByTestId('secret-value').textContent()) ?? '';
    expect(destinationSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(destinationSecret).not.toBe(createdSecret);
    await page.getByText('The previous secret also signs until').waitFor();
    await env.screenshot('destination');
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.getByTestId('secret-value').count()).toBe(0);
    const destinationId = page.url().split('/').pop()!;

    // "Do not sign" asks the API for none: the new destination opens at once, unsigned.
    await nav(page, 'Destinations');
    await page.getByRole('button', { name: 'New destination' }).click();
    await form.getByLabel('Name').fill('Unsigned receiver');
    await form.getByLabel('Webhook URL').fill(receiver.url);
    await form.getByLabel('Signing').selectOption('none');
    await form.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('heading', { name: /Unsigned receiver/ }).waitFor();
    await page.getByText('Not signed: deliveries carry no signature headers.').waitFor();
    await gqlAsOwner('mutation ($p: ID, $e: ID!, $d: ID) { createLink(projectId: $p, endpointId: $e, input: { destinationId: $d }) { destinationId } }', { e: endpointId, d: destinationId });
  });

  it('a failing destination shows retrying then failed, and the dead-letter replay delivers', async () => {
    const { page } = env;
    const sent = await gqlAsOwner('mutation ($p: ID, $e: ID!) { sendTestEvent(projectId: $p, endpointId: $e) { eventId } }', { e: endpointId });
    const eventId = sent.sendTestEvent.eventId as string;
    await page.goto(`/events/${eventId}`);
    const delivery = page.getByTestId('delivery');
    await delivery.getByText('retrying').first().waitFor({ timeout: 30_000 });
    await delivery.locator('.badge', { hasText: 'failed' }).first().waitFor({ timeout: 30_000 });
    await env.screenshot('event-failed');
    // This service is not told the Temporal UI's address (TEMPORAL_UI_URL): no workflow link.
    expect(await page.getByTestId('workflow-link').count()).toBe(0);
    expect(receiver.requests.length).toBeGreaterThanOrEqual(2);
    expect(receiver.requests.at(-1)!.headers['x-service-signature']).toMatch(/^sha256=/);

    receiver.respond = () => ({ status: 200, body: 'ok' });
    await nav(page, 'Dead letters');
    const row = page.getByRole('table').getByRole('row').filter({ has: page.locator('[data-outcome=dead_lettered]') }).first();
    await row.waitFor();
    await env.screenshot('dead-letters-replay');
    await row.getByRole('button', { name: 'Replay' }).click();
    await page.getByText('The dead-letter queue is empty').waitFor({ timeout: 30_000 });
    await page.goto(`/events/${eventId}`);
    await page.getByTestId('status-code').filter({ hasText: '200' }).waitFor({ timeout: 30_000 });
    // The replayed dead letter no longer offers a replay that the API would refuse (not_dead_lettered).
    await page.getByTestId('delivery').filter({ hasText: 'replayed' }).locator('[data-outcome=dead_lettered]').waitFor();
    expect(await page.getByRole('button', { name: 'Replay from DLQ' }).count()).toBe(0);
  });

  it('the metrics page draws its charts after some events, per project and per endpoint', async () => {
    const { page } = env;
    await nav(page, 'Metrics');
    await page.getByLabel('Totals').getByText('Events received').waitFor();
    // Events, deliveries, success rate and latency: four uPlot canvases. Two Test events were sent so far, and the
    // failing destination above made two operational events on the project's system source (docs/operational-events.md):
    // its issue's opening (the first failure) and its dead letter.
    await page.locator('[data-testid=chart] canvas').nth(3).waitFor();
    expect(Number(await page.locator('.tile', { hasText: 'Events received' }).locator('.tile-value').textContent())).toBe(4);
    await page.getByRole('table', { name: 'Latency per destination' }).getByText('Flaky receiver').waitFor();
    await env.screenshot('metrics');
    await page.getByRole('button', { name: 'Week' }).click();
    await page.getByRole('combobox', { name: 'Endpoint' }).selectOption({ label: 'Orders' });
    await page.getByText(/one point per 1 h/).waitFor();
    await page.locator('[data-testid=chart] canvas').nth(3).waitFor();
    // At phone width the charts stack and follow the width.
    await page.setViewportSize({ width: 390, height: 800 });
    await page.locator('[data-testid=chart] canvas').first().waitFor();
    const width = (await page.locator('[data-testid=chart]').first().boundingBox())!.width;
    expect(width).toBeLessThan(390);
    await env.screenshot('metrics-phone');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('the endpoint page links to the metrics page filtered to that endpoint', async () => {
    const { page } = env;
    await page.goto(`/endpoints/${endpointId}`);
    // The page's own link (the nav has a Metrics link too, there before the endpoint loads).
    await page.getByRole('main').getByRole('link', { name: 'Metrics', exact: true }).click();
    await page.getByLabel('Totals').getByText('Events received').waitFor();
    expect(new URL(page.url()).search).toBe(`?endpoint=${endpointId}`);
    expect(await page.getByRole('combobox', { name: 'Endpoint' }).inputValue()).toBe(endpointId);
    // Reachable by URL: a reload shows the Metrics page, not the Prometheus text of /metrics.
    expect(new URL(page.url()).pathname).toBe('/project-metrics');
    await page.reload();
    await page.getByLabel('Totals').getByText('Events received').waitFor();
    expect(await page.getByRole('combobox', { name: 'Endpoint' }).inputValue()).toBe(endpointId);
    await page.getByRole('combobox', { name: 'Endpoint' }).selectOption({ label: 'All endpoints' });
    await page.waitForURL((url) => url.pathname === '/project-metrics' && url.search === '');
  });

  it('creates a Standard Webhooks destination: its deliveries verify with the standardwebhooks package, through a rotation and a scheme change', async () => {
    const { page } = env;
    const standard = await startReceiver();
    try {
      await nav(page, 'Destinations');
      await page.getByRole('button', { name: 'New destination' }).click();
      const form = page.getByRole('form', { name: 'New destination' });
      await form.getByLabel('Name').fill('Standard receiver');
      await form.getByLabel('Webhook URL').fill(standard.url);
      await form.getByLabel('Signing').selectOption('standard');
      await form.getByRole('button', { name: 'Create' }).click();
      const created = page.getByRole('region', { name: 'New destination' });
      await created.getByText('checks webhook-signature').waitFor();
      const secret = (await created.getByTestId('secret-value').textContent()) ?? '';
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      await page.getByRole('table', { name: 'Destinations' }).getByText('Standard Webhooks').waitFor();
      await env.screenshot('destination-standard-created');
      await created.getByRole('button', { name: 'Done' }).click();
      await page.getByText('Deliveries are signed in the Standard Webhooks scheme').waitFor();
      expect(await page.getByLabel('Signature scheme').inputValue()).toBe('standard');
      const destinationId = page.url().split('/').pop()!;
      const source = (await gqlAsOwner('mutation ($p: ID) { createEndpoint(projectId: $p, input: { name: "Standard source" }) { id } }')).createEndpoint.id;
      await gqlAsOwner('mutation ($p: ID, $e: ID!, $d: ID) { createLink(projectId: $p, endpointId: $e, input: { destinationId: $d }) { destinationId } }', { e: source, d: destinationId });
      const sendTest = async () => {
        const before = standard.requests.length;
        await gqlAsOwner('mutation ($p: ID, $e: ID!) { sendTestEvent(projectId: $p, endpointId: $e) { eventId } }', { e: source });
        await standard.waitFor(before + 1);
        return standard.requests[before];
      };
      const verify = (key: string, req: ReceivedRequest) => new Webhook(key).verify(req.body, req.headers as Record<string, string>);

      const first = await sendTest();
      expect(verify(secret, first)).toEqual(JSON.parse(first.body));
      expect(() => verify(secret, { ...first, body: first.body.replace('}', ' }') })).toThrow(WebhookVerificationError);

      // Rotating (default overlap 24 h): the old and the new secret both verify the next delivery.
      await page.getByRole('button', { name: 'Rotate' }).click();
      const rotated = (await page.getByTestId('secret-value').textContent()) ?? '';
      await page.getByText('The previous secret also signs until').waitFor();
      const during = await sendTest();
      expect((during.headers['webhook-signature'] as string).split(' ')).toHaveLength(2);
      expect(verify(secret, during)).toEqual(JSON.parse(during.body));
      expect(verify(rotated, during)).toEqual(JSON.parse(during.body));
      await page.getByRole('button', { name: 'Done' }).click();
      await env.screenshot('destination-standard');

      // Back to the service's scheme: the secret suits both, so none is shown; the overlap ends.
      await page.getByLabel('Signature scheme').selectOption('service');
      await page.getByText('Deliveries are signed (X-Service-Timestamp, X-Service-Signature).').waitFor();
      expect(await page.getByTestId('secret-value').count()).toBe(0);
      const after = await sendTest();
      expect(after.headers['webhook-signature']).toBeUndefined();
      expect(after.headers['x-service-signature']).toMatch(/^sha256=/);
    } finally {
      await standard.close();
    }
  });

  it('creates an API key shown once, and revokes it', async () => {
    const { page } = env;
    await nav(page, 'API keys');
    await page.getByLabel('Name').fill('CI');
    await page.getByRole('button', { name: 'Create key' }).click();
    apiKey = (await page.getByTestId('secret-value').textContent()) ?? '';
    expect(apiKey).toMatch(/^svc_/);
    await env.screenshot('api-keys');
    await page.getByRole('button', { name: 'Done' }).click();
    const row = page.getByRole('table', { name: 'API keys' }).getByRole('row').filter({ hasText: 'CI' });
    await row.getByRole('button', { name: 'Revoke' }).click();
    await row.getByRole('button', { name: /Revoke: it stops working now/ }).click();
    await row.getByText('revoked').waitFor();
  });

  it('invites a viewer, who sees no write buttons, and whom the API refuses anyway', async () => {
    const { page } = env;
    await nav(page, 'Members');
    await page.getByLabel('Email').fill(viewerEmail);
    await page.getByLabel('Role').selectOption('viewer');
    await page.getByRole('button', { name: 'Invite' }).click();
    // The page shows the invite link; its last part is the token.
    const inviteToken = ((await page.getByTestId('secret-value').textContent()) ?? '').split('/invite/')[1];
    await page.getByRole('table', { name: 'Pending invites' }).getByText(viewerEmail).waitFor();
    await env.screenshot('members');
    await page.getByRole('button', { name: 'Done' }).click();

    const viewerSession = await graphql(env.baseUrl, 'mutation ($i: SignupInput!) { signup(input: $i) { accessToken } }', { i: { email: viewerEmail, password: PASSWORD, inviteToken } });
    const context = await env.browser.newContext({ viewport: { width: 1280, height: 800 }, baseURL: env.baseUrl });
    const viewer = await context.newPage();
    const refusalsBefore = env.refusals().length;
    try {
      await viewer.goto('/');
      await viewer.getByLabel('Email').fill(viewerEmail);
      await viewer.getByLabel('Password').fill(PASSWORD);
      await viewer.getByRole('button', { name: 'Log in' }).click();
      await viewer.getByRole('heading', { name: 'Events' }).waitFor();
      // The invite's organization is the viewer's only one with a project.
      expect(await viewer.getByTestId('role').textContent()).toBe('viewer');
      const writeButtons = /^(New destination|Create and edit|Create|Save|Delete|Generate|Rotate|Regenerate now|Clear|Pause|Create key|Revoke|Invite|Remove|Replay.*)$/;
      const pages: Array<[string, string]> = [
        ['Destinations', 'Flaky receiver'],
        ['Templates', 'Pull requests'],
        ['Transforms', 'Slim'],
        ['API keys', 'CI'],
        ['Members', viewerEmail],
      ];
      for (const [label, text] of pages) {
        await nav(viewer, label);
        await viewer.getByRole('main').getByText(text).first().waitFor();
        expect(await viewer.getByRole('main').getByRole('button', { name: writeButtons }).count()).toBe(0);
        if (label !== 'API keys' && label !== 'Members') {
          // The detail page too (editors are read-only).
          await viewer.getByRole('main').getByRole('link', { name: text }).click();
          await viewer.getByRole('heading', { name: new RegExp(text) }).waitFor();
          expect(await viewer.getByRole('main').getByRole('button', { name: writeButtons }).count()).toBe(0);
        }
      }
      await nav(viewer, 'Destinations');
      await viewer.getByRole('table', { name: 'Destinations' }).getByText('Flaky receiver').waitFor();
      await env.screenshot('viewer-destinations', viewer);
      // The page fired no write: the API refused nothing.
      expect(env.refusals().length).toBe(refusalsBefore);
    } finally {
      await context.close();
    }
    const refused = await fetch(`${env.baseUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${viewerSession.signup.accessToken}`, 'x-project-id': projectId },
      body: JSON.stringify({ query: 'mutation { createDestination(input: { name: "x", type: "webhook", webhookUrl: "https://example.com/h" }) { id } }' }),
    });
    const body = (await refused.json()) as { errors?: Array<{ extensions?: { code?: string } }> };
    expect(body.errors?.[0].extensions?.code).toBe('insufficient_role');
    const rest = await fetch(`${env.baseUrl}/v1/api-keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${viewerSession.signup.accessToken}`, 'x-project-id': projectId },
      body: JSON.stringify({ name: 'sneaky' }),
    });
    expect(rest.status).toBe(403);
  });

  it('never received a secret shown once outside its own answer', () => {
    // A rotated destination secret is made in the browser and sent, never received; the generated one, the API key and
    // the invite token come back once.
    env.expectNotReceived([destinationSecret]);
    env.expectNotReceived([createdSecret], (r) => r.operation === 'CreateDestination');
    env.expectNotReceived([apiKey], (r) => r.operation === 'CreateApiKey');
    env.expectNotReceived([PASSWORD]);
  });
});
