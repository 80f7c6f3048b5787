import { spawnSync } from 'node:child_process';
import { type DashboardEnv, describeInBrowser, graphql, logIn, signUpThroughApi, startDashboardEnv } from './browser';

const PASSWORD = 'correct horse battery staple';
const SECRET = 'whsec_editors_test_secret_0123456789';

/**
 * The endpoint and destination pages' editors (issue 18.6): the signing hint's curl, run as
 * shown, gets 202 for every signing scheme; max concurrency saved on the destination page.
 */
describeInBrowser('dashboard: endpoint and destination editors', () => {
  let env: DashboardEnv;
  let token = '';
  let projectId = '';
  const email = `editors-${Date.now()}@example.test`;

  const gql = <T = any>(query: string, variables: Record<string, unknown> = {}) => graphql<T>(env.baseUrl, query, { p: projectId, ...variables }, token);

  beforeAll(async () => {
    // One endpoint page load costs about 200 of the 600 requests a minute RELAY_API_RATE_LIMIT allows (its lists'
    // GraphQL cost): opening six endpoint pages within a minute would be throttled, which is not what this suite tests.
    env = await startDashboardEnv({ env: { RELAY_API_RATE_LIMIT: '0' } });
    token = await signUpThroughApi(env.baseUrl, email, PASSWORD);
    projectId = (await graphql(env.baseUrl, '{ projects { data { id } } }', {}, token)).projects.data[0].id;
    await logIn(env.page, email, PASSWORD);
  }, 180_000);
  afterAll(async () => {
    await env?.close();
  });

  /** Runs the hint's shell text with the secret pasted in; curl also prints the status it got. */
  function runHint(script: string, secret: string): string {
    const pasted = script.replace(/^SECRET='[^']*'$/m, `SECRET='${secret}'`);
    const result = spawnSync('bash', ['-c', `curl() { command curl -w '\\nHTTP %{http_code}\\n' "$@"; }\n${pasted}`], { encoding: 'utf8', timeout: 20_000 });
    return `${result.stdout}${result.stderr}`;
  }

  it.each([null, 'chat_a', 'codehost_b', 'tracker_b', 'payments_a'])('the signing hint of a %s endpoint gets 202 when run as shown', async (provider) => {
    const created = await gql('mutation ($p: ID, $i: EndpointInput!) { createEndpoint(projectId: $p, input: $i) { id } }', {
      i: { name: `Hint ${provider ?? 'generic'}`, provider, signingSecret: SECRET },
    });
    const { page } = env;
    await page.goto(`/endpoints/${created.createEndpoint.id}`);
    const hint = page.getByTestId('signing-hint');
    await hint.getByText('Send a signed request from a shell').click();
    const script = (await hint.locator('pre').textContent()) ?? '';
    if (!provider) await env.screenshot('endpoint-signing-hint');

    expect(runHint(script, SECRET)).toMatch(/HTTP 202\n$/);
    // The same command with another secret is refused: the 202 comes from the signature.
    expect(runHint(script, 'whsec_not_the_secret_00000000000000')).toMatch(/HTTP 401\n$/);
    // The event is stored (read after a reload, not through the live feed, which may start after it arrived).
    await page.reload();
    await page.getByRole('table', { name: 'Recent events' }).getByRole('row').nth(1).waitFor();
  });

  it('saves max concurrency on the destination page: a reload shows it and the API returns it', async () => {
    const created = await gql('mutation ($p: ID) { createDestination(projectId: $p, input: { name: "Slow", type: "webhook", webhookUrl: "http://127.0.0.1:9/hook" }) { id maxConcurrency } }');
    const id = created.createDestination.id as string;
    expect(created.createDestination.maxConcurrency).toBeNull();
    const { page } = env;
    await page.goto(`/destinations/${id}`);
    const form = page.getByRole('form', { name: 'Edit destination' });
    await form.getByLabel('Max concurrency').fill('3');
    await form.getByRole('button', { name: 'Save' }).click();
    await form.getByText('Saved.').waitFor();
    await page.reload();
    await page.getByRole('form', { name: 'Edit destination' }).getByLabel('Max concurrency').waitFor();
    expect(await page.getByRole('form', { name: 'Edit destination' }).getByLabel('Max concurrency').inputValue()).toBe('3');
    await env.screenshot('destination-max-concurrency');
    const read = async () => (await gql('query ($p: ID, $id: ID!) { destination(projectId: $p, id: $id) { maxConcurrency } }', { id })).destination.maxConcurrency;
    expect(await read()).toBe(3);

    // Blank goes back to the service default.
    await page.getByRole('form', { name: 'Edit destination' }).getByLabel('Max concurrency').fill('');
    await page.getByRole('form', { name: 'Edit destination' }).getByRole('button', { name: 'Save' }).click();
    await page.getByRole('form', { name: 'Edit destination' }).getByText('Saved.').waitFor();
    expect(await read()).toBeNull();
    await page.reload();
    expect(await page.getByRole('form', { name: 'Edit destination' }).getByLabel('Max concurrency').inputValue()).toBe('');
  });
});
