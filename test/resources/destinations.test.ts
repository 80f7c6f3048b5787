import { Destination } from '../../src/destinations/destination.entity';
import { destinationSigningSecrets } from '../../src/destinations/destination-secret.service';
import { createDestination } from '../support/factories';
import { collectPages, expectNoSecrets, type ResourceEnv, SECRETS, startResourceEnv } from './resource-harness';

const WEBHOOK_URL = `https://receiver.example.test/${SECRETS.webhookPath}?token=x`;
const CHAT_URL = `https://chat.example.test/${SECRETS.chatWebhookPath}`;
/** Bot-token sends post to the platform's API root; this server has all three (the last describe has none). */
const PLATFORM_ROOTS = { CHAT_A_API_BASE_URL: 'https://chat-a.example.test/api', CHAT_B_API_BASE_URL: 'https://chat-b.example.test/api', CHAT_C_API_BASE_URL: 'https://chat-c.example.test' };
const FIELDS = 'id name type webhookHost hasWebhookUrl hasBotToken hasSigningSecret previousSecretExpiresAt guildId channelId retryPolicy { maxAttempts backoff } eventTypes isActive';

describe('destinations over REST and GraphQL', () => {
  let env: ResourceEnv;

  beforeAll(async () => {
    env = await startResourceEnv(PLATFORM_ROOTS);
  });
  afterAll(() => env.close());

  it('creates a webhook destination: secrets sealed and write-only, host shown, default retry policy', async () => {
    const res = await env.call('POST', '/v1/destinations', {
      body: { name: 'Receiver', type: 'webhook', webhook_url: WEBHOOK_URL, signing_secret: SECRETS.destinationSigning, event_types: ['push', 'push', 'issue'] },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      project_id: env.owner.project.id,
      name: 'Receiver',
      type: 'webhook',
      webhook_host: 'receiver.example.test',
      has_webhook_url: true,
      has_bot_token: false,
      signing_secret: null,
      has_signing_secret: true,
      signature_scheme: 'service',
      previous_secret_expires_at: null,
      guild_id: null,
      channel_id: null,
      retry_policy: { max_attempts: 7, backoff: [1, 5, 30, 120, 900, 3600, 21600] },
      event_types: ['push', 'issue'],
      is_active: true,
      paused_reason: null,
      paused_at: null,
      max_concurrency: null,
      circuit: { state: 'closed', consecutive_failures: 0, opened_at: null, next_probe_at: null, last_error: null },
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    // Stored sealed, and the sender can open it.
    const row = await env.em().findOneOrFail(Destination, res.body.id);
    expect(row.webhookUrlEnc).not.toContain(SECRETS.webhookPath);
    expect(env.api.container.secrets.open(row.webhookUrlEnc!)).toBe(WEBHOOK_URL);
    expect(destinationSigningSecrets(row, env.api.container.secrets)?.secret).toBe(SECRETS.destinationSigning);
  });

  it('signs a new webhook destination by default: a generated secret, shown once; signing_secret null asks for none', async () => {
    const created = await env.call('POST', '/v1/destinations', { body: { name: 'Default signed', type: 'webhook', webhook_url: WEBHOOK_URL } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ has_signing_secret: true, signing_secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/) });
    // The secret shown is the one deliveries are signed with, and it is never shown again.
    const row = await env.em().findOneOrFail(Destination, created.body.id);
    expect(destinationSigningSecrets(row, env.api.container.secrets)).toEqual({ scheme: 'service', secret: created.body.signing_secret, previousSecret: null });
    expect(Buffer.from(created.body.signing_secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    const again = await env.call('GET', `/v1/destinations/${created.body.id}`);
    expect(again.body).toMatchObject({ signing_secret: null, has_signing_secret: true });
    expect(JSON.stringify(again.body)).not.toContain(created.body.signing_secret);
    const listed = await env.call('GET', '/v1/destinations');
    expect(JSON.stringify(listed.body)).not.toContain(created.body.signing_secret);
    // Every listed item, the first one included, says no secret is shown.
    expect(listed.body.data.map((d: { signing_secret: unknown }) => d.signing_secret)).toEqual(listed.body.data.map(() => null));
    const renamed = await env.call('PATCH', `/v1/destinations/${created.body.id}`, { body: { name: 'Renamed' } });
    expect(renamed.body).toMatchObject({ signing_secret: null, has_signing_secret: true });
    const second = await env.call('POST', '/v1/destinations', { body: { name: 'Another', type: 'webhook', webhook_url: WEBHOOK_URL } });
    expect(second.body.signing_secret).not.toBe(created.body.signing_secret);

    const unsigned = await env.call('POST', '/v1/destinations', { body: { name: 'Unsigned', type: 'webhook', webhook_url: WEBHOOK_URL, signing_secret: null } });
    expect(unsigned.status).toBe(201);
    expect(unsigned.body).toMatchObject({ has_signing_secret: false, signing_secret: null });
    expect(destinationSigningSecrets(await env.em().findOneOrFail(Destination, unsigned.body.id), env.api.container.secrets)).toBeNull();
    const given = await env.call('POST', '/v1/destinations', { body: { name: 'Given', type: 'webhook', webhook_url: WEBHOOK_URL, signing_secret: SECRETS.destinationSigning } });
    expect(given.body).toMatchObject({ has_signing_secret: true, signing_secret: null });
    // Chat destinations are not signed: nothing is generated for them.
    const chat = await env.call('POST', '/v1/destinations', { body: { name: 'Chat', type: 'chat_b', webhook_url: CHAT_URL } });
    expect(chat.body).toMatchObject({ has_signing_secret: false, signing_secret: null });

    const gql = await env.query('mutation { a: createDestination(input: { name: "g1", type: "webhook", webhookUrl: "https://a.test/" }) { hasSigningSecret signingSecret } '
      + 'b: createDestination(input: { name: "g2", type: "webhook", webhookUrl: "https://a.test/", signingSecret: null }) { id hasSigningSecret signingSecret } }');
    expect(gql.errors).toBeUndefined();
    expect(gql.data.a).toEqual({ hasSigningSecret: true, signingSecret: expect.stringMatching(/^whsec_/) });
    expect(gql.data.b).toMatchObject({ hasSigningSecret: false, signingSecret: null });
    const read = await env.query('query($id: ID!) { destination(id: $id) { signingSecret } }', { id: gql.data.b.id });
    expect(read.data.destination.signingSecret).toBeNull();
  });

  it('signature_scheme standard: a whsec_ secret of 24 to 64 bytes, generated or given; anything else is a clear 400', async () => {
    const generated = await env.call('POST', '/v1/destinations', { body: { name: 'Std', type: 'webhook', webhook_url: WEBHOOK_URL, signature_scheme: 'standard' } });
    expect(generated.status).toBe(201);
    expect(generated.body).toMatchObject({ signature_scheme: 'standard', has_signing_secret: true, signing_secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/) });
    const row = await env.em().findOneOrFail(Destination, generated.body.id);
    expect(destinationSigningSecrets(row, env.api.container.secrets)).toEqual({ scheme: 'standard', secret: generated.body.signing_secret, previousSecret: null });
    expect((await env.call('GET', `/v1/destinations/${generated.body.id}`)).body).toMatchObject({ signature_scheme: 'standard', signing_secret: null });

    const b64 = (bytes: number) => Buffer.alloc(bytes, 0xfb).toString('base64');
    for (const bytes of [24, 64]) {
      const given = await env.call('POST', '/v1/destinations', { body: { name: `Std ${bytes}`, type: 'webhook', webhook_url: WEBHOOK_URL, signature_scheme: 'standard', signing_secret: `whsec_${b64(bytes)}` } });
      expect({ bytes, status: given.status, secret: given.body.signing_secret }).toEqual({ bytes, status: 201, secret: null });
    }
    for (const secret of [`whsec_${b64(23)}`, `whsec_${b64(65)}`, b64(32), `whsec_${Buffer.alloc(32, 0xfb).toString('base64url')}`, SECRETS.destinationSigning]) {
      const res = await env.call('POST', '/v1/destinations', { body: { name: 'Bad', type: 'webhook', webhook_url: WEBHOOK_URL, signature_scheme: 'standard', signing_secret: secret } });
      expect({ secret, status: res.status, code: res.body.error?.code }).toEqual({ secret, status: 400, code: 'invalid_input' });
      expect(res.body.error.details.fields).toEqual([{ field: 'signing_secret', message: expect.stringContaining('whsec_ followed by the padded base64 of 24 to 64 random bytes') }]);
    }
    // The same rules on rotation and update, over GraphQL too; chat destinations have no scheme.
    const rotateBad = await env.call('POST', `/v1/destinations/${generated.body.id}/signing-secret`, { body: { signing_secret: SECRETS.destinationRotated } });
    expect(rotateBad.body.error).toMatchObject({ code: 'invalid_input', details: { fields: [{ field: 'signing_secret' }] } });
    const rotated = await env.call('POST', `/v1/destinations/${generated.body.id}/signing-secret`, { body: { signing_secret: `whsec_${b64(32)}` } });
    expect(rotated.body).toMatchObject({ signature_scheme: 'standard', previous_secret_expires_at: expect.any(String) });
    const gqlBad = await env.query('mutation($id: ID!) { updateDestination(id: $id, input: { signingSecret: "whsec_tooshort" }) { id } }', { id: generated.body.id });
    expect(gqlBad.errors?.[0].extensions).toMatchObject({ code: 'invalid_input', status: 400, details: { fields: [{ field: 'signing_secret' }] } });
    const gqlCreate = await env.query('mutation { createDestination(input: { name: "g", type: "webhook", webhookUrl: "https://a.test/", signatureScheme: "standard" }) { signatureScheme signingSecret } }');
    expect(gqlCreate.data.createDestination).toEqual({ signatureScheme: 'standard', signingSecret: expect.stringMatching(/^whsec_/) });
    const badScheme = await env.call('POST', '/v1/destinations', { body: { name: 'x', type: 'webhook', webhook_url: WEBHOOK_URL, signature_scheme: 'svix' } });
    expect(badScheme.body.error.details.fields[0]).toEqual({ field: 'signature_scheme', message: 'must be service or standard' });
    const chat = await env.call('POST', '/v1/destinations', { body: { name: 'x', type: 'chat_b', webhook_url: CHAT_URL, signature_scheme: 'standard' } });
    expect(chat.body.error.details.fields[0]).toEqual({ field: 'signature_scheme', message: 'only webhook destinations are signed' });
    // Unsigned stays unsigned whatever the scheme: the scheme applies once a secret is set.
    const unsigned = await env.call('POST', '/v1/destinations', { body: { name: 'u', type: 'webhook', webhook_url: WEBHOOK_URL, signature_scheme: 'standard', signing_secret: null } });
    expect(unsigned.body).toMatchObject({ signature_scheme: 'standard', has_signing_secret: false, signing_secret: null });
  });

  it('changing the scheme cuts over: a secret the new scheme cannot use is replaced (shown once), a usable one is kept', async () => {
    const service = await env.call('POST', '/v1/destinations', { body: { name: 'S', type: 'webhook', webhook_url: WEBHOOK_URL, signing_secret: SECRETS.destinationSigning } });
    const id = service.body.id;
    await env.call('POST', `/v1/destinations/${id}/signing-secret`, { body: { signing_secret: SECRETS.destinationRotated, overlap_seconds: 3600 } });
    const toStandard = await env.call('PATCH', `/v1/destinations/${id}`, { body: { signature_scheme: 'standard' } });
    expect(toStandard.body).toMatchObject({ signature_scheme: 'standard', signing_secret: expect.stringMatching(/^whsec_/), previous_secret_expires_at: null });
    const row = await env.em().findOneOrFail(Destination, id);
    expect(destinationSigningSecrets(row, env.api.container.secrets)).toEqual({ scheme: 'standard', secret: toStandard.body.signing_secret, previousSecret: null });
    // A generated (whsec_ base64) secret suits both schemes: switching back keeps it.
    const back = await env.call('PATCH', `/v1/destinations/${id}`, { body: { signature_scheme: 'service' } });
    expect(back.body).toMatchObject({ signature_scheme: 'service', signing_secret: null, has_signing_secret: true });
    const kept = await env.call('PATCH', `/v1/destinations/${id}`, { body: { signature_scheme: 'standard' } });
    expect(kept.body).toMatchObject({ signature_scheme: 'standard', signing_secret: null });
    expect(destinationSigningSecrets(await env.em().findOneOrFail(Destination, id), env.api.container.secrets)?.secret).toBe(toStandard.body.signing_secret);
    // Scheme and secret together: the given secret is checked against the new scheme.
    const both = await env.call('PATCH', `/v1/destinations/${id}`, { body: { signature_scheme: 'service', signing_secret: SECRETS.destinationSigning } });
    expect(both.body).toMatchObject({ signature_scheme: 'service', signing_secret: null });
    const refused = await env.call('PATCH', `/v1/destinations/${id}`, { body: { signature_scheme: 'standard', signing_secret: SECRETS.destinationRotated } });
    expect(refused.status).toBe(400);
    expect((await env.call('GET', `/v1/destinations/${id}`)).body.signature_scheme).toBe('service');
  });

  it('creates each chat type with its required fields and refuses what a type does not take', async () => {
    const ok = [
      { name: 'b-hook', type: 'chat_b', webhook_url: CHAT_URL },
      { name: 'b-bot', type: 'chat_b', bot_token: SECRETS.botToken, channel_id: '123', guild_id: '456' },
      { name: 'a-hook', type: 'chat_a', webhook_url: CHAT_URL },
      { name: 'a-bot', type: 'chat_a', bot_token: SECRETS.botToken, channel_id: 'C123' },
      { name: 'c-bot', type: 'chat_c', bot_token: SECRETS.botToken, channel_id: '@news' },
    ];
    for (const body of ok) {
      const res = await env.call('POST', '/v1/destinations', { body });
      expect({ name: body.name, status: res.status }).toEqual({ name: body.name, status: 201 });
      expect(res.body.has_bot_token).toBe(!!body.bot_token);
    }
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ name: 'x', type: 'webhook' }, 'webhook_url'],
      [{ name: 'x', type: 'webhook', webhook_url: 'ftp://example.test/x' }, 'webhook_url'],
      [{ name: 'x', type: 'webhook', webhook_url: 'not a url' }, 'webhook_url'],
      [{ name: 'x', type: 'webhook', webhook_url: CHAT_URL, bot_token: SECRETS.botToken }, 'bot_token'],
      [{ name: 'x', type: 'chat_b' }, 'webhook_url'],
      [{ name: 'x', type: 'chat_b', bot_token: SECRETS.botToken }, 'channel_id'],
      [{ name: 'x', type: 'chat_a', webhook_url: CHAT_URL, guild_id: '1' }, 'guild_id'],
      [{ name: 'x', type: 'chat_c', channel_id: '1' }, 'bot_token'],
      [{ name: 'x', type: 'chat_c', bot_token: SECRETS.botToken }, 'channel_id'],
      [{ name: 'x', type: 'chat_a', webhook_url: CHAT_URL, signing_secret: SECRETS.destinationSigning }, 'signing_secret'],
      [{ name: 'x', type: 'cli' }, 'type'],
      [{ name: 'x', type: 'webhook', webhook_url: CHAT_URL, signing_secret: 'short' }, 'signing_secret'],
      [{ name: 'x', type: 'webhook', webhook_url: CHAT_URL, retry_policy: { max_attempts: 21, backoff: [1] } }, 'retry_policy.max_attempts'],
      [{ name: 'x', type: 'webhook', webhook_url: CHAT_URL, retry_policy: { max_attempts: 0, backoff: [1] } }, 'retry_policy.max_attempts'],
      [{ name: 'x', type: 'webhook', webhook_url: CHAT_URL, retry_policy: { max_attempts: 3, backoff: [] } }, 'retry_policy.backoff'],
      [{ name: 'x', type: 'webhook', webhook_url: CHAT_URL, retry_policy: { max_attempts: 3, backoff: [1, 86_401] } }, 'retry_policy.backoff.1'],
      [{ name: 'x', type: 'webhook', webhook_url: CHAT_URL, retry_policy: { max_attempts: 3, backoff: [1.5] } }, 'retry_policy.backoff.0'],
      [{ name: 'x', type: 'webhook', webhook_url: CHAT_URL, max_concurrency: 0 }, 'max_concurrency'],
      [{ name: 'x', type: 'webhook', webhook_url: CHAT_URL, max_concurrency: 1001 }, 'max_concurrency'],
      [{ name: 'x', type: 'webhook', webhook_url: CHAT_URL, event_types: 'push' }, 'event_types'],
    ];
    for (const [body, field] of bad) {
      const res = await env.call('POST', '/v1/destinations', { body });
      expect({ body, status: res.status, code: res.body.error?.code }).toEqual({ body, status: 400, code: 'invalid_input' });
      expect({ body, fields: res.body.error.details.fields.map((f: { field: string }) => f.field) }).toEqual({ body, fields: expect.arrayContaining([field]) });
    }
  });

  it('updates: a secret string replaces, null removes, absent keeps; the type cannot change; rules hold after the change', async () => {
    const created = await env.call('POST', '/v1/destinations', { body: { name: 'Chat', type: 'chat_b', webhook_url: CHAT_URL } });
    const id = created.body.id;
    const toBot = await env.call('PATCH', `/v1/destinations/${id}`, { body: { webhook_url: null, bot_token: SECRETS.botToken, channel_id: '42', retry_policy: { max_attempts: 3, backoff: [10, 60] } } });
    expect(toBot.status).toBe(200);
    expect(toBot.body).toMatchObject({ has_webhook_url: false, webhook_host: null, has_bot_token: true, channel_id: '42', retry_policy: { max_attempts: 3, backoff: [10, 60] } });
    const limited = await env.call('PATCH', `/v1/destinations/${id}`, { body: { max_concurrency: 3 } });
    expect(limited.body.max_concurrency).toBe(3);
    const unlimited = await env.call('PATCH', `/v1/destinations/${id}`, { body: { max_concurrency: null } });
    expect(unlimited.body.max_concurrency).toBeNull();
    const renamed = await env.call('PATCH', `/v1/destinations/${id}`, { body: { name: 'Chat 2', is_active: false } });
    expect(renamed.body).toMatchObject({ name: 'Chat 2', is_active: false, has_bot_token: true });
    const broken = await env.call('PATCH', `/v1/destinations/${id}`, { body: { channel_id: null } });
    expect(broken.status).toBe(400);
    expect(broken.body.error.details.fields[0].field).toBe('channel_id');
    const typeChange = await env.call('PATCH', `/v1/destinations/${id}`, { body: { type: 'webhook' } });
    expect(typeChange.status).toBe(400);
    expect(typeChange.body.error.details.fields[0].field).toBe('type');
    expect((await env.call('GET', `/v1/destinations/${id}`)).body).toMatchObject({ name: 'Chat 2', channel_id: '42', type: 'chat_b' });
  });

  it('rotates and clears a webhook destination’s signing secret (POST/DELETE /v1/destinations/{id}/signing-secret)', async () => {
    const created = await env.call('POST', '/v1/destinations', { body: { name: 'Signed', type: 'webhook', webhook_url: WEBHOOK_URL, signing_secret: SECRETS.destinationSigning } });
    const id = created.body.id;
    const rotated = await env.call('POST', `/v1/destinations/${id}/signing-secret`, { body: { signing_secret: SECRETS.destinationRotated, overlap_seconds: 3600 } });
    expect(rotated.status).toBe(200);
    expect(rotated.body).toMatchObject({ id, has_signing_secret: true, previous_secret_expires_at: expect.any(String) });
    const row = await env.em().findOneOrFail(Destination, id);
    expect(destinationSigningSecrets(row, env.api.container.secrets)).toEqual({ scheme: 'service', secret: SECRETS.destinationRotated, previousSecret: SECRETS.destinationSigning });

    expect((await env.call('POST', `/v1/destinations/${id}/signing-secret`, { body: { signing_secret: SECRETS.destinationRotated, overlap_seconds: 604_801 } })).status).toBe(400);
    expect((await env.call('POST', `/v1/destinations/${id}/signing-secret`, { body: {} })).status).toBe(400);
    expect((await env.call('POST', `/v1/destinations/${id}/signing-secret`, { token: env.tokens.viewer, body: { signing_secret: SECRETS.destinationRotated } })).status).toBe(403);

    const cleared = await env.call('DELETE', `/v1/destinations/${id}/signing-secret`);
    expect(cleared.status).toBe(200);
    expect(cleared.body).toMatchObject({ has_signing_secret: false, previous_secret_expires_at: null });
    expect(destinationSigningSecrets(await env.em().findOneOrFail(Destination, id), env.api.container.secrets)).toBeNull();

    const chat = await env.call('POST', '/v1/destinations', { body: { name: 'c', type: 'chat_a', webhook_url: CHAT_URL } });
    const notSigned = await env.call('POST', `/v1/destinations/${chat.body.id}/signing-secret`, { body: { signing_secret: SECRETS.destinationRotated } });
    expect(notSigned.status).toBe(400);
    expect(notSigned.body.error.code).toBe('signing_not_supported');
  });

  it('rotates a relay listen session’s cli destination secret (what --print-secret prints next), never removes it', async () => {
    // Its owner is shown this secret (as `relay listen --print-secret` is), so it is not one of SECRETS, which answers never contain.
    const [ROTATED, ROTATED_AGAIN] = ['whsec_cli_rotated_0123456789abcdef', 'whsec_cli_rotated_again_0123456789'];
    expect((await env.call('POST', '/v1/endpoints', { body: { name: 'Listen source', slug: 'listen-src' } })).status).toBe(201);
    const start = 'mutation { startCliSession(input: { machine: "qa-box", sourceSlugs: ["listen-src"] }) { destination { id } signingSecret } }';
    const started = await env.query(start);
    expect(started.errors).toBeUndefined();
    const { destination, signingSecret: first } = started.data.startCliSession;

    const rotated = await env.call('POST', `/v1/destinations/${destination.id}/signing-secret`, { body: { signing_secret: ROTATED, overlap_seconds: 3600 } });
    expect(rotated.status).toBe(200);
    expect(rotated.body).toMatchObject({ id: destination.id, type: 'cli', has_signing_secret: true, previous_secret_expires_at: expect.any(String) });
    // Forwards sign with both during the overlap, and the next listen prints the new one.
    const row = await env.em().findOneOrFail(Destination, destination.id);
    expect(destinationSigningSecrets(row, env.api.container.secrets)).toEqual({ scheme: 'service', secret: ROTATED, previousSecret: first });
    expect((await env.query(start)).data.startCliSession).toMatchObject({ destination: { id: destination.id }, signingSecret: ROTATED });
    const overGraphql = await env.query('mutation($id: ID!, $s: String!) { rotateDestinationSecret(id: $id, input: { signingSecret: $s, overlapSeconds: 0 }) { type previousSecretExpiresAt } }', {
      id: destination.id,
      s: ROTATED_AGAIN,
    });
    expect(overGraphql.data?.rotateDestinationSecret).toEqual({ type: 'cli', previousSecretExpiresAt: null });

    const cleared = await env.call('DELETE', `/v1/destinations/${destination.id}/signing-secret`);
    expect(cleared.status).toBe(400);
    expect(cleared.body.error.code).toBe('signing_required');
    const patched = await env.call('PATCH', `/v1/destinations/${destination.id}`, { body: { signing_secret: null } });
    expect(patched.status).toBe(400);
    expect(patched.body.error.details.fields[0].field).toBe('signing_secret');
    expect((await env.query(start)).data.startCliSession.signingSecret).toBe(ROTATED_AGAIN);
  });

  it('lists with pagination (cli destinations included, not creatable), 401/403/404 and delete', async () => {
    const cli = await createDestination(env.api.container, env.em(), env.owner.project, { type: 'cli', name: 'cli-me-laptop-src' });
    const { ids } = await collectPages(env, '/v1/destinations', 3);
    expect(ids[0]).toBe(cli.id);
    expect(ids.length).toBeGreaterThan(6);
    expect((await env.call('GET', '/v1/destinations', { token: '' })).status).toBe(401);
    expect((await env.call('GET', `/v1/destinations/${cli.id}`, { token: env.tokens.viewer })).body.type).toBe('cli');
    expect((await env.call('PATCH', `/v1/destinations/${cli.id}`, { token: env.tokens.viewer, body: { name: 'x' } })).status).toBe(403);
    const asStranger = { token: env.tokens.stranger, projectId: env.stranger.project.id };
    expect((await env.call('GET', `/v1/destinations/${cli.id}`, asStranger)).status).toBe(404);
    expect((await env.call('DELETE', `/v1/destinations/${cli.id}`, asStranger)).status).toBe(404);
    expect((await env.call('DELETE', `/v1/destinations/${cli.id}/signing-secret`, asStranger)).status).toBe(404);
    expect((await env.call('GET', '/v1/destinations', asStranger)).body.data).toEqual([]);
    expect((await env.call('DELETE', `/v1/destinations/${cli.id}`)).status).toBe(204);
    expect((await env.call('GET', `/v1/destinations/${cli.id}`)).status).toBe(404);
    expect((await env.call('GET', '/v1/destinations/not-a-uuid')).status).toBe(400);
  });

  it('offers the same operations over GraphQL', async () => {
    const created = await env.query(`mutation($input: DestinationInput!) { createDestination(input: $input) { ${FIELDS} } }`, {
      input: { name: 'G', type: 'webhook', webhookUrl: WEBHOOK_URL, signingSecret: SECRETS.destinationSigning, retryPolicy: { maxAttempts: 2, backoff: [5] } },
    });
    expect(created.errors).toBeUndefined();
    const d = created.data.createDestination;
    expect(d).toMatchObject({ type: 'webhook', webhookHost: 'receiver.example.test', hasSigningSecret: true, retryPolicy: { maxAttempts: 2, backoff: [5] } });
    const got = await env.query(`query($id: ID!) { destination(id: $id) { ${FIELDS} } }`, { id: d.id });
    expect(got.data.destination).toEqual(d);
    const list = await env.query('{ destinations(limit: 2) { data { id } nextCursor } }');
    expect(list.data.destinations.data[0].id).toBe(d.id);
    expect(list.data.destinations.nextCursor).toEqual(expect.any(String));
    const updated = await env.query(
      'mutation($id: ID!) { updateDestination(id: $id, input: { eventTypes: ["a"], isActive: false, maxConcurrency: 4 }) { eventTypes isActive maxConcurrency circuit { state consecutiveFailures } } }',
      { id: d.id },
    );
    expect(updated.data.updateDestination).toEqual({ eventTypes: ['a'], isActive: false, maxConcurrency: 4, circuit: { state: 'closed', consecutiveFailures: 0 } });
    const rotated = await env.query('mutation($id: ID!, $s: String!) { rotateDestinationSecret(id: $id, input: { signingSecret: $s, overlapSeconds: 0 }) { hasSigningSecret previousSecretExpiresAt } }', {
      id: d.id,
      s: SECRETS.destinationRotated,
    });
    expect(rotated.data.rotateDestinationSecret).toEqual({ hasSigningSecret: true, previousSecretExpiresAt: null });
    const cleared = await env.query('mutation($id: ID!) { clearDestinationSecret(id: $id) { hasSigningSecret } }', { id: d.id });
    expect(cleared.data.clearDestinationSecret.hasSigningSecret).toBe(false);

    const invalid = await env.query('mutation { createDestination(input: { name: "x", type: "chat_c", botToken: "t" }) { id } }');
    expect(invalid.errors?.[0].extensions).toMatchObject({ code: 'invalid_input', status: 400, details: { fields: [{ field: 'channel_id' }] } });
    const badRetry = await env.query('mutation { createDestination(input: { name: "x", type: "webhook", webhookUrl: "https://a.test/", retryPolicy: { maxAttempts: 50, backoff: [1] } }) { id } }');
    expect(badRetry.errors?.[0].extensions).toMatchObject({ code: 'invalid_input', details: { fields: [{ field: 'retry_policy.max_attempts' }] } });
    const viewer = await env.query('mutation($id: ID!) { deleteDestination(id: $id) }', { id: d.id }, { token: env.tokens.viewer });
    expect(viewer.errors?.[0].extensions).toMatchObject({ code: 'insufficient_role', status: 403 });
    const stranger = await env.query('query($id: ID!) { destination(id: $id) { id } }', { id: d.id }, { token: env.tokens.stranger, projectId: env.stranger.project.id });
    expect(stranger.errors?.[0].extensions).toMatchObject({ code: 'not_found', status: 404 });
    expect((await env.query('mutation($id: ID!) { deleteDestination(id: $id) }', { id: d.id })).data.deleteDestination).toBe(true);
  });

  it('never returned a secret it was given', () => {
    expect(() => expectNoSecrets([`{"x":"${SECRETS.botToken}"}`])).toThrow();
    expect(env.bodies.length).toBeGreaterThan(40);
    expectNoSecrets(env.bodies);
  });
});

describe('destinations on a server without the chat platforms’ API roots', () => {
  let env: ResourceEnv;

  beforeAll(async () => {
    env = await startResourceEnv({ CHAT_B_API_BASE_URL: PLATFORM_ROOTS.CHAT_B_API_BASE_URL });
  });
  afterAll(() => env.close());

  it('refuses a bot-token destination of a platform it cannot send to, naming the setting, over REST and GraphQL alike', async () => {
    for (const [body, setting] of [
      [{ name: 'a-bot', type: 'chat_a', bot_token: SECRETS.botToken, channel_id: 'C123' }, 'CHAT_A_API_BASE_URL'],
      [{ name: 'c-bot', type: 'chat_c', bot_token: SECRETS.botToken, channel_id: '@news' }, 'CHAT_C_API_BASE_URL'],
      // With both, the bot token is what a send uses.
      [{ name: 'a-both', type: 'chat_a', bot_token: SECRETS.botToken, channel_id: 'C1', webhook_url: CHAT_URL }, 'CHAT_A_API_BASE_URL'],
    ] as const) {
      const res = await env.call('POST', '/v1/destinations', { body });
      expect({ name: body.name, status: res.status, code: res.body.error?.code, setting: res.body.error?.details?.setting }).toEqual({ name: body.name, status: 400, code: 'platform_not_configured', setting });
      expect(res.body.error.message).toContain(setting);
      expect(res.body.error.details.fields).toEqual([{ field: 'bot_token', message: expect.stringContaining(setting) }]);
    }
    const gql = await env.query('mutation { createDestination(input: { name: "c", type: "chat_c", botToken: "t", channelId: "@news" }) { id } }');
    expect(gql.errors?.[0].extensions).toMatchObject({ code: 'platform_not_configured', status: 400, details: { setting: 'CHAT_C_API_BASE_URL' } });
    expect(gql.errors?.[0].message).toContain('CHAT_C_API_BASE_URL');
    // What needs no setting still works: webhook URLs, and the platform whose root is set.
    expect((await env.call('POST', '/v1/destinations', { body: { name: 'a-hook', type: 'chat_a', webhook_url: CHAT_URL } })).status).toBe(201);
    expect((await env.call('POST', '/v1/destinations', { body: { name: 'b-bot', type: 'chat_b', bot_token: SECRETS.botToken, channel_id: '1' } })).status).toBe(201);
    expect((await env.call('GET', '/v1/destinations')).body.data.map((d: { name: string }) => d.name).sort()).toEqual(['a-hook', 'b-bot']);
  });

  it('refuses an update that would send through a missing root, and lets one that cannot send be paused', async () => {
    const created = await env.call('POST', '/v1/destinations', { body: { name: 'Chat A', type: 'chat_a', webhook_url: CHAT_URL } });
    const id = created.body.id;
    const toBot = await env.call('PATCH', `/v1/destinations/${id}`, { body: { webhook_url: null, bot_token: SECRETS.botToken, channel_id: 'C1' } });
    expect(toBot.status).toBe(400);
    expect(toBot.body.error).toMatchObject({ code: 'platform_not_configured', details: { setting: 'CHAT_A_API_BASE_URL' } });
    const gql = await env.query('mutation($id: ID!) { updateDestination(id: $id, input: { botToken: "t", channelId: "C1" }) { id } }', { id });
    expect(gql.errors?.[0].extensions).toMatchObject({ code: 'platform_not_configured', details: { setting: 'CHAT_A_API_BASE_URL' } });
    expect((await env.call('GET', `/v1/destinations/${id}`)).body).toMatchObject({ has_bot_token: false, has_webhook_url: true });
    // Made while the server had the root (or by an older version): pausing it needs no root, resuming does.
    const stale = await createDestination(env.api.container, env.em(), env.owner.project, { type: 'chat_c', botToken: SECRETS.botToken, channelId: '@news' });
    expect((await env.call('PATCH', `/v1/destinations/${stale.id}`, { body: { is_active: false } })).status).toBe(200);
    expect((await env.call('PATCH', `/v1/destinations/${stale.id}`, { body: { name: 'Paused C' } })).status).toBe(200);
    const resumed = await env.call('PATCH', `/v1/destinations/${stale.id}`, { body: { is_active: true } });
    expect(resumed.body.error).toMatchObject({ code: 'platform_not_configured', details: { setting: 'CHAT_C_API_BASE_URL' } });
  });

  it('lists which types this server can send, with the setting each needs (REST and GraphQL)', async () => {
    const rest = await env.call('GET', '/v1/destination-platforms', { token: env.tokens.viewer });
    expect(rest.status).toBe(200);
    expect(rest.body.data).toEqual([
      { type: 'webhook', description: expect.stringContaining('JSON'), available: true, configured: true, setting: null, reason: null },
      { type: 'chat_a', description: expect.stringContaining('blocks'), available: true, configured: false, setting: 'CHAT_A_API_BASE_URL', reason: expect.stringContaining('CHAT_A_API_BASE_URL') },
      { type: 'chat_b', description: expect.stringContaining('embed'), available: true, configured: true, setting: 'CHAT_B_API_BASE_URL', reason: null },
      { type: 'chat_c', description: expect.stringContaining('HTML'), available: false, configured: false, setting: 'CHAT_C_API_BASE_URL', reason: expect.stringContaining('CHAT_C_API_BASE_URL') },
    ]);
    const gql = await env.query('{ destinationPlatforms { type description available configured setting reason } }');
    expect(gql.data.destinationPlatforms).toEqual(rest.body.data);
    expect((await env.call('GET', '/v1/destination-platforms', { token: '' })).status).toBe(401);
  });
});
