import type { BrowserContext, Page } from 'playwright-core';
import { type DashboardEnv, describeInBrowser, graphql, logIn, signUpThroughApi, startDashboardEnv } from './browser';

const PASSWORD = 'correct horse battery staple';
const AXE = require.resolve('axe-core/axe.min.js');

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

/**
 * axe-core (injected into the page) over every dashboard page, signed out and signed in, with
 * data on each: no serious or critical violation. Every violation found is printed, moderate
 * and minor ones too.
 */
describeInBrowser('dashboard accessibility (axe-core)', () => {
  let env: DashboardEnv;
  let axeContext: BrowserContext;
  let token = '';
  let projectId = '';
  const email = `a11y-${Date.now()}@example.test`;
  const paths: Record<string, string> = {};
  let inviteUrl = '';

  const gql = <T = any>(query: string, variables: Record<string, unknown> = {}) => graphql<T>(env.baseUrl, query, { p: projectId, ...variables }, token);

  beforeAll(async () => {
    env = await startDashboardEnv();
    token = await signUpThroughApi(env.baseUrl, email, PASSWORD);
    projectId = (await graphql(env.baseUrl, '{ projects { data { id } } }', {}, token)).projects.data[0].id;
    const endpoint = (await gql('mutation ($p: ID) { createEndpoint(projectId: $p, input: { name: "Orders" }) { id } }')).createEndpoint.id;
    const destination = (await gql('mutation ($p: ID) { createDestination(projectId: $p, input: { name: "Receiver", type: "webhook", webhookUrl: "http://127.0.0.1:9/hook" }) { id } }')).createDestination.id;
    const template = (await gql('mutation ($p: ID) { createTemplate(projectId: $p, input: { name: "Pushes", config: { title: "{{ .Payload.action }}" } }) { id } }')).createTemplate.id;
    const transform = (await gql('mutation ($p: ID) { createTransform(projectId: $p, input: { name: "Trim", expression: "$" }) { id } }')).createTransform.id;
    await gql('mutation ($p: ID, $e: ID!, $d: ID!) { createLink(projectId: $p, endpointId: $e, input: { destinationId: $d }) { id } }', { e: endpoint, d: destination });
    await gql('mutation ($p: ID, $e: ID!) { createFilterGroup(projectId: $p, endpointId: $e, input: { name: "Pushes only", logic: "AND", conditions: [{ field: "body.action", operator: "exists", value: "" }] }) { id } }', { e: endpoint });
    const event = (await gql('mutation ($p: ID, $e: ID!) { sendTestEvent(projectId: $p, endpointId: $e) { eventId } }', { e: endpoint })).sendTestEvent.eventId;
    await gql('mutation ($p: ID) { createApiKey(projectId: $p, name: "CI") { id } }');
    // A Test event through a source without filters: its first attempt is refused (nothing listens on port 9), an issue opens.
    const unfiltered = (await gql('mutation ($p: ID) { createEndpoint(projectId: $p, input: { name: "Billing" }) { id } }')).createEndpoint.id;
    await gql('mutation ($p: ID, $e: ID!, $d: ID!) { createLink(projectId: $p, endpointId: $e, input: { destinationId: $d }) { id } }', { e: unfiltered, d: destination });
    await gql('mutation ($p: ID, $e: ID!) { sendTestEvent(projectId: $p, endpointId: $e) { eventId } }', { e: unfiltered });
    let issue: string | undefined;
    while (!(issue = (await gql('query ($p: ID) { issues(projectId: $p) { data { id } } }')).issues.data[0]?.id)) await new Promise((r) => setTimeout(r, 250));
    const organizationId = (await graphql(env.baseUrl, '{ organizations { data { id } } }', {}, token)).organizations.data[0].id;
    // The link's path, on the origin this browser is signed in on (PUBLIC_BASE_URL names localhost, the browser 127.0.0.1).
    inviteUrl = new URL((await gql('mutation ($o: ID!) { createInvite(organizationId: $o, email: "someone@example.test", role: "viewer") { url } }', { o: organizationId })).createInvite.url).pathname;
    Object.assign(paths, {
      'get started': '/start',
      'get started, at its test step': `/start?source=${endpoint}&destination=${destination}&event=${event}`,
      events: '/events',
      event: `/events/${event}`,
      issues: '/issues',
      issue: `/issues/${issue}`,
      'dead letters': '/dead-letters',
      endpoints: '/endpoints',
      endpoint: `/endpoints/${endpoint}`,
      destinations: '/destinations',
      destination: `/destinations/${destination}`,
      templates: '/templates',
      template: `/templates/${template}`,
      transforms: '/transforms',
      transform: `/transforms/${transform}`,
      metrics: '/project-metrics',
      members: '/members',
      'API keys': '/api-keys',
    });
    // The page's CSP allows only the dashboard's own scripts: axe is injected with CSP bypassed.
    axeContext = await env.browser.newContext({ baseURL: env.baseUrl, bypassCSP: true, viewport: { width: 1280, height: 800 } });
  }, 180_000);
  afterAll(async () => {
    await axeContext?.close();
    await env?.close();
  });

  async function audit(page: Page, name: string): Promise<Violation[]> {
    await page.addScriptTag({ path: AXE });
    const violations = (await page.evaluate('axe.run(document, { resultTypes: ["violations"] }).then((r) => r.violations)')) as Violation[];
    for (const v of violations) {
      process.stdout.write(`axe ${name}: ${v.impact} ${v.id} (${v.help}) at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}\n`);
    }
    return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => ({ ...v, page: name }));
  }

  it('finds no serious or critical violation on any page', async () => {
    const found: Violation[] = [];
    const page = await axeContext.newPage();

    await page.goto('/');
    await page.getByRole('heading', { name: 'Log in to relay' }).waitFor();
    found.push(...(await audit(page, 'sign in')));
    await page.getByRole('button', { name: 'Sign up' }).click();
    found.push(...(await audit(page, 'sign up')));
    await page.goto(inviteUrl);
    await page.getByRole('heading', { name: 'Join Default' }).waitFor();
    found.push(...(await audit(page, 'invite (signed out)')));
    await page.goto('/oauth/callback?error=access_denied&error_description=denied');
    await page.getByRole('heading', { name: 'Sign-in failed' }).waitFor();
    found.push(...(await audit(page, 'oauth callback error')));

    await logIn(page, email, PASSWORD);
    for (const [name, path] of Object.entries(paths)) {
      await page.goto(path);
      await page.getByRole('heading', { level: 1 }).first().waitFor();
      // Let the page's queries answer (its tables and charts are what is audited).
      await page.waitForLoadState('networkidle').catch(() => undefined);
      found.push(...(await audit(page, name)));
    }
    await page.goto(inviteUrl);
    await page.getByRole('button', { name: 'Accept and join' }).waitFor();
    found.push(...(await audit(page, 'invite (signed in)')));

    expect(found.map((v) => `${(v as Violation & { page: string }).page}: ${v.impact} ${v.id} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
  }, 300_000);
});
