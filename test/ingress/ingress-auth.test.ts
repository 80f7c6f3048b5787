import type { EntityManager } from '@mikro-orm/postgresql';
import { SignJWT } from 'jose';
import type { ApiKey } from '../../src/api-keys/api-key.entity';
import { systemProjectContext } from '../../src/common/request-context';
import type { EndpointProvider } from '../../src/common/types';
import { rotateEndpointSecret } from '../../src/endpoints/endpoint-secret.service';
import { notifyApiKeysChanged } from '../../src/ingress/endpoint-cache';
import type { Project } from '../../src/projects/project.entity';
import { createEndpoint, createWorkspace } from '../support/factories';
import { createApiKey, hmacHex, postHook } from '../support/ingress-helpers';
import { startTestApi, type TestApi } from '../support/api';

type Signer = (secret: string, body: string, opts?: { skew?: number }) => Promise<Record<string, string>> | Record<string, string>;
const nowS = () => Math.floor(Date.now() / 1000);

/** For each scheme: how a sender signs, and (for schemes with time) how an expired signature looks. */
const SCHEMES: Array<{ name: string; provider: EndpointProvider | null; sign: Signer; expires: boolean }> = [
  { name: 'X-Hub-Signature-256', provider: null, expires: false, sign: (s, b) => ({ 'X-Hub-Signature-256': `sha256=${hmacHex(s, b)}` }) },
  { name: 'X-Service-Signature', provider: null, expires: false, sign: (s, b) => ({ 'X-Service-Signature': `sha256=${hmacHex(s, b)}` }) },
  {
    name: 'chat_a',
    provider: 'chat_a',
    expires: true,
    sign: (s, b, { skew = 0 } = {}) => {
      const ts = nowS() + skew;
      return { 'X-ChatA-Signature': `v0=${hmacHex(s, `v0:${ts}:`, b)}`, 'X-ChatA-Request-Timestamp': String(ts) };
    },
  },
  { name: 'codehost_b', provider: 'codehost_b', expires: false, sign: (s) => ({ 'X-CodehostB-Token': s }) },
  { name: 'tracker_b', provider: 'tracker_b', expires: false, sign: (s, b) => ({ 'TrackerB-Signature': hmacHex(s, b) }) },
  {
    name: 'payments_a',
    provider: 'payments_a',
    expires: true,
    sign: (s, b, { skew = 0 } = {}) => {
      const t = nowS() + skew;
      return { 'PaymentsA-Signature': `t=${t},v1=${hmacHex(s, `${t}.`, b)}` };
    },
  },
  {
    name: 'tracker_a',
    provider: 'tracker_a',
    expires: true,
    sign: async (s, _b, { skew = 0 } = {}) => ({
      Authorization: `Bearer ${await new SignJWT({ sub: 'tracker' }).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime(nowS() + 60 + skew).sign(new TextEncoder().encode(s))}`,
    }),
  },
];

describe('ingress authentication', () => {
  let api: TestApi;
  let em: EntityManager;
  let project: Project;

  beforeAll(async () => {
    api = await startTestApi();
    em = api.container.orm.em.fork();
    ({ project } = await createWorkspace(em, { plan: 'growth' }));
  });

  afterAll(async () => {
    await api?.close();
  });

  const countEvents = async (id: string) => Number((await em.getConnection().execute('select count(*)::int as n from events where endpoint_id = ?', [id]))[0].n);

  describe.each(SCHEMES)('$name', ({ provider, sign }) => {
    let slug: string;
    let secret: string;
    let id: string;
    beforeAll(async () => {
      const created = await createEndpoint(api.container, em, project, { provider });
      ({ signingSecret: secret } = created);
      slug = created.endpoint.slug;
      id = created.endpoint.id;
    });
    const body = JSON.stringify({ hello: 'world', n: 1 });

    it('accepts a good signature', async () => {
      const res = await postHook(api.baseUrl, slug, body, await sign(secret, body));
      expect(res.status).toBe(202);
    });

    it('refuses a bad signature with 401 invalid_authentication, storing nothing', async () => {
      const before = await countEvents(id);
      const res = await postHook(api.baseUrl, slug, body, await sign('the-wrong-secret-entirely', body));
      expect(res.status).toBe(401);
      expect(res.body.error?.code).toBe('invalid_authentication');
      expect(await countEvents(id)).toBe(before);
    });

    it('refuses a missing signature with 401 naming the expected scheme', async () => {
      const res = await postHook(api.baseUrl, slug, body);
      expect(res.status).toBe(401);
      expect(res.body.error?.code).toBe('missing_authentication');
      expect(res.body.error?.message).toContain(Object.keys(await sign(secret, body))[0]);
    });

    it('accepts the previous secret during a rotation overlap, and not after a regenerate', async () => {
      const ctx = systemProjectContext(api.container, em.fork(), project);
      const rotated = await rotateEndpointSecret(ctx, id, { overlap_seconds: 3600 });
      expect(rotated.signing_secret).toMatch(/^whsec_/);
      expect(new Date(rotated.previous_secret_expires_at!).getTime()).toBeGreaterThan(Date.now() + 3500_000);
      expect((await postHook(api.baseUrl, slug, body, await sign(secret, body))).status).toBe(202);
      expect((await postHook(api.baseUrl, slug, body, await sign(rotated.signing_secret!, body))).status).toBe(202);

      const regenerated = await rotateEndpointSecret(ctx, id, { overlap_seconds: 0 });
      expect(regenerated.previous_secret_expires_at).toBeNull();
      expect((await postHook(api.baseUrl, slug, body, await sign(rotated.signing_secret!, body))).status).toBe(401);
      expect((await postHook(api.baseUrl, slug, body, await sign(secret, body))).status).toBe(401);
      expect((await postHook(api.baseUrl, slug, body, await sign(regenerated.signing_secret!, body))).status).toBe(202);
      secret = regenerated.signing_secret!;
    });
  });

  it.each(SCHEMES.filter((s) => s.expires))('$name: refuses an expired signature with 401 expired_authentication', async ({ provider, sign }) => {
    const { endpoint, signingSecret } = await createEndpoint(api.container, em, project, { provider });
    const body = '{"late":true}';
    const res = await postHook(api.baseUrl, endpoint.slug, body, await sign(signingSecret, body, { skew: -600 }));
    expect(res.status).toBe(401);
    expect(res.body.error?.code).toBe('expired_authentication');
    expect(await countEvents(endpoint.id)).toBe(0);
  });

  it('rotates to a given secret without echoing it, and validates the overlap', async () => {
    const { endpoint } = await createEndpoint(api.container, em, project);
    const ctx = systemProjectContext(api.container, em.fork(), project);
    const given = 'my-own-secret-0123456789';
    const result = await rotateEndpointSecret(ctx, endpoint.id, { signing_secret: given, overlap_seconds: 60 });
    expect(result).toEqual({ previous_secret_expires_at: expect.any(String) });
    const body = '{"a":1}';
    expect((await postHook(api.baseUrl, endpoint.slug, body, { 'X-Hub-Signature-256': `sha256=${hmacHex(given, body)}` })).status).toBe(202);
    await expect(rotateEndpointSecret(ctx, endpoint.id, { overlap_seconds: 604_801 })).rejects.toMatchObject({ status: 400 });
    await expect(rotateEndpointSecret(ctx, endpoint.id, { overlap_seconds: 1.5 })).rejects.toMatchObject({ status: 400 });
    await expect(rotateEndpointSecret(ctx, '00000000-0000-7000-8000-000000000000', {})).rejects.toMatchObject({ status: 404 });
  });

  it('stops accepting the previous secret when its overlap ends', async () => {
    const { endpoint, signingSecret } = await createEndpoint(api.container, em, project);
    const ctx = systemProjectContext(api.container, em.fork(), project);
    await rotateEndpointSecret(ctx, endpoint.id, { overlap_seconds: 1 });
    const body = '{"a":1}';
    const old = { 'X-Hub-Signature-256': `sha256=${hmacHex(signingSecret, body)}` };
    expect((await postHook(api.baseUrl, endpoint.slug, body, old)).status).toBe(202);
    await new Promise((r) => setTimeout(r, 1100));
    expect((await postHook(api.baseUrl, endpoint.slug, body, old)).status).toBe(401);
  });

  describe('project API keys', () => {
    let slug: string;
    let endpointId: string;
    beforeAll(async () => {
      const { endpoint } = await createEndpoint(api.container, em, project);
      slug = endpoint.slug;
      endpointId = endpoint.id;
    });
    const body = '{"via":"api key"}';

    it('accepts an active key of the endpoint\'s project', async () => {
      const { key } = await createApiKey(em, project);
      expect((await postHook(api.baseUrl, slug, body, { Authorization: `Bearer ${key}` })).status).toBe(202);
    });

    it('refuses unknown keys, revoked keys and keys of another project', async () => {
      const before = await countEvents(endpointId);
      const { key: revoked } = await createApiKey(em, project, { revokedAt: new Date() });
      const other = await createWorkspace(em);
      const { key: foreign } = await createApiKey(em, other.project);
      for (const key of ['svc_unknown', revoked, foreign]) {
        const res = await postHook(api.baseUrl, slug, body, { Authorization: `Bearer ${key}` });
        expect(res.status).toBe(401);
        expect(res.body.error?.code).toBe('invalid_authentication');
      }
      expect(await countEvents(endpointId)).toBe(before);
    });

    it('refuses a key as soon as it is revoked', async () => {
      const { apiKey, key } = await createApiKey(em, project);
      expect((await postHook(api.baseUrl, slug, body, { Authorization: `Bearer ${key}` })).status).toBe(202);
      (apiKey as ApiKey).revokedAt = new Date();
      await em.flush();
      await notifyApiKeysChanged(em);
      expect((await postHook(api.baseUrl, slug, body, { Authorization: `Bearer ${key}` })).status).toBe(401);
    });
  });
});
