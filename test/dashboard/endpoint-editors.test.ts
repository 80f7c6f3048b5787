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
    env = await startDashboardEnv();
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

  it('typing rules: the builder adds conditions and parts, shows invalid input inline, saves, and a reload shows the same (also as JSON)', async () => {
    const endpointId = (await gql('mutation ($p: ID) { createEndpoint(projectId: $p, input: { name: "Typed" }) { id } }')).createEndpoint.id as string;
    const { page } = env;
    await page.goto(`/endpoints/${endpointId}`);
    const form = page.getByRole('form', { name: 'Endpoint settings' });
    await form.getByRole('button', { name: 'Add rule' }).click();
    await form.getByLabel('Rule 1 name').fill('by action');
    const rule = form.getByRole('group', { name: 'Rule 1', exact: true });
    await rule.getByRole('button', { name: 'Add condition' }).click();
    await form.getByLabel('Rule 1 condition 1 field').fill('body.action');
    await form.getByLabel('Rule 1 condition 1 operator').selectOption('exists');
    expect(await form.getByLabel('Rule 1 condition 1 value').count()).toBe(0);
    await rule.getByRole('button', { name: 'Add condition' }).click();
    await form.getByLabel('Rule 1 condition 2 field').fill('kind');
    await form.getByText('field must be "header.<Name>" or "body.<dot.path>"').first().waitFor();
    // Saving with a problem shown is refused in the page: nothing is sent.
    const updates = () => env.received.filter((r) => r.operation === 'UpdateEndpoint').length;
    const before = updates();
    await form.getByRole('button', { name: 'Save' }).click();
    await form.getByRole('alert').getByText('field must be "header.<Name>" or "body.<dot.path>"').waitFor();
    await form.getByLabel('Rule 1 condition 2 field').fill('header.X-Kind');
    await form.getByLabel('Rule 1 condition 2 operator').selectOption('regex');
    await form.getByLabel('Rule 1 condition 2 value').fill('(');
    await form.getByText(/invalid regular expression/).first().waitFor();
    await env.screenshot('typing-rules-builder-error');
    await form.getByLabel('Rule 1 condition 2 value').fill('^push');
    await form.getByLabel('Rule 1 part 1', { exact: true }).fill('body.action');
    await rule.getByRole('button', { name: 'Add part' }).click();
    await form.getByLabel('Rule 1 part 2 kind').selectOption('literal');
    await form.getByLabel('Rule 1 part 2', { exact: true }).fill('v2');
    await form.getByLabel('Rule 1 separator').fill('-');
    expect(updates()).toBe(before);
    await form.getByRole('button', { name: 'Save' }).click();
    await form.getByText('Saved.').waitFor();

    const expected = [
      {
        name: 'by action',
        logic: 'AND',
        conditions: [
          { field: 'body.action', operator: 'exists', value: '' },
          { field: 'header.X-Kind', operator: 'regex', value: '^push' },
        ],
        parts: [{ path: 'body.action' }, { literal: 'v2' }],
        separator: '-',
      },
    ];
    const read = async () => (await gql('query ($p: ID, $id: ID!) { endpoint(projectId: $p, id: $id) { typingRules } }', { id: endpointId })).endpoint.typingRules;
    expect(await read()).toEqual(expected);

    await page.reload();
    const again = page.getByRole('form', { name: 'Endpoint settings' });
    expect(await again.getByLabel('Rule 1 name').inputValue()).toBe('by action');
    expect(await again.getByLabel('Rule 1 condition 2 value').inputValue()).toBe('^push');
    expect(await again.getByLabel('Rule 1 part 2', { exact: true }).inputValue()).toBe('v2');
    await again.getByRole('group', { name: 'Rule 1', exact: true }).scrollIntoViewIfNeeded();
    await env.screenshot('typing-rules-builder');
    await again.getByRole('button', { name: 'JSON' }).click();
    const json = again.getByLabel('Typing rules as JSON');
    expect(JSON.parse(await json.inputValue())).toEqual(expected);

    // The JSON view is the fallback: a shape the builder cannot show stays in JSON, saying why; bad JSON is refused inline.
    await json.fill(JSON.stringify([{ ...expected[0], note: 'not a rule key' }]));
    await again.getByRole('button', { name: 'Builder' }).click();
    await again.getByText('The builder cannot show this shape').waitFor();
    await json.fill('[{');
    await again.getByRole('button', { name: 'Save' }).click();
    await again.getByRole('alert').getByText(/Not valid JSON/).waitFor();
    await json.fill(JSON.stringify(expected));
    await again.getByRole('button', { name: 'Builder' }).click();
    expect(await again.getByLabel('Rule 1 name').inputValue()).toBe('by action');
  });

  it('filter groups and routing rules: built with the builders, saved, shown the same after a reload', async () => {
    const endpointId = (await gql('mutation ($p: ID) { createEndpoint(projectId: $p, input: { name: "Routed" }) { id } }')).createEndpoint.id as string;
    const template = (await gql('mutation ($p: ID) { createTemplate(projectId: $p, input: { name: "PR template", config: { title: "{{ .Payload.action }}" } }) { id } }')).createTemplate.id;
    await gql('mutation ($p: ID) { createDestination(projectId: $p, input: { name: "Chat", type: "webhook", webhookUrl: "http://127.0.0.1:9/chat" }) { id } }');
    const { page } = env;
    await page.goto(`/endpoints/${endpointId}`);

    await page.getByText('New filter group').click();
    const filters = page.getByRole('form', { name: 'New filter group' });
    await filters.getByLabel('Name').fill('Pushes outside test');
    await filters.getByLabel('Condition 1 value').fill('push');
    await filters.getByRole('button', { name: 'Add condition' }).click();
    await filters.getByLabel('Condition 2 field').fill('header.X-Env');
    await filters.getByLabel('Condition 2 operator').selectOption('neq');
    await filters.getByLabel('Condition 2 value').fill('test');
    await filters.getByRole('button', { name: 'Add condition' }).click();
    await filters.getByRole('button', { name: 'Remove condition 3' }).click();
    await filters.scrollIntoViewIfNeeded();
    await env.screenshot('filter-group-builder');
    await filters.getByRole('button', { name: 'Add filter group' }).click();
    const table = page.getByRole('table', { name: 'Filters' });
    await table.getByText('header.X-Env neq test').waitFor();

    const links = page.getByRole('form', { name: 'Link a destination' });
    await links.getByRole('button', { name: 'Add rule' }).click();
    await links.getByLabel('Rule 1 name').fill('prs');
    await links.getByRole('button', { name: 'Add condition' }).click();
    await links.getByLabel('Rule 1 condition 1 field').fill('body.pull_request');
    await links.getByLabel('Rule 1 condition 1 operator').selectOption('exists');
    await links.getByLabel('Rule 1 template').selectOption({ label: 'PR template' });
    await links.getByRole('button', { name: 'Link destination' }).click();
    const linked = page.getByRole('table', { name: 'Linked destinations' });
    await linked.getByText('prs: body.pull_request exists → PR template / —').waitFor();

    await page.reload();
    await page.getByRole('table', { name: 'Filters' }).getByText('body.type eq push').waitFor();
    await page.getByRole('table', { name: 'Filters' }).getByText('header.X-Env neq test').waitFor();
    await page.getByRole('table', { name: 'Linked destinations' }).getByText('prs: body.pull_request exists → PR template / —').waitFor();

    // Editing a saved group opens the builder with its conditions; saving replaces them.
    await page.getByRole('button', { name: 'Edit Pushes outside test' }).click();
    const edit = page.getByRole('form', { name: 'Edit filter group Pushes outside test' });
    expect(await edit.getByLabel('Condition 2 field').inputValue()).toBe('header.X-Env');
    await edit.getByLabel('Condition 2 operator').selectOption('not_contains');
    await edit.getByLabel('Condition 2 value').fill('stag');
    await edit.getByRole('button', { name: 'Save filter group' }).click();
    await page.getByRole('table', { name: 'Filters' }).getByText('header.X-Env not_contains stag').waitFor();
    await page.reload();
    await page.getByRole('table', { name: 'Filters' }).getByText('header.X-Env not_contains stag').waitFor();

    // A saved link's rules open in the builder too; saving replaces them.
    await page.getByRole('button', { name: 'Edit rules of Chat' }).click();
    const rulesForm = page.getByRole('form', { name: 'Routing rules of Chat' });
    expect(await rulesForm.getByLabel('Rule 1 name').inputValue()).toBe('prs');
    await rulesForm.getByLabel('Rule 1 name').fill('pull requests');
    await rulesForm.getByRole('button', { name: 'Save routing rules' }).click();
    await page.getByRole('table', { name: 'Linked destinations' }).getByText('pull requests: body.pull_request exists → PR template / —').waitFor();
    await page.reload();
    await page.getByRole('table', { name: 'Linked destinations' }).getByText('pull requests: body.pull_request exists → PR template / —').waitFor();
    const saved = await gql('query ($p: ID, $e: ID!) { filterGroups(projectId: $p, endpointId: $e) { data { name logic conditions { field operator value } } } links(projectId: $p, endpointId: $e) { data { routingRules } } }', { e: endpointId });
    expect(saved.filterGroups.data).toEqual([
      { name: 'Pushes outside test', logic: 'AND', conditions: [{ field: 'body.type', operator: 'eq', value: 'push' }, { field: 'header.X-Env', operator: 'not_contains', value: 'stag' }] },
    ]);
    expect(saved.links.data[0].routingRules).toEqual([
      { name: 'pull requests', logic: 'AND', conditions: [{ field: 'body.pull_request', operator: 'exists', value: '' }], template_id: template, transform_id: null },
    ]);
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
