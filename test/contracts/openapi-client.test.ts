import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ApiError } from '../../packages/cli/src/api-client';
import { restClient, unwrap } from '../../packages/cli/src/api/rest-client';
import { startTestApi, type TestApi, tokenFor } from '../support/api';
import { createWorkspace } from '../support/factories';

const ROOT = path.resolve(__dirname, '..', '..');

/**
 * The typed client (packages/cli/src/api/): its types are what openapi-typescript generates from the
 * checked-in schema/openapi.json (CI fails on drift: run `npm run client:generate` and commit), and
 * its requests reach the API (the type-check of the checkout compiles it against those types).
 */
describe('the typed /v1 client', () => {
  it('is generated from schema/openapi.json: packages/cli/src/api/v1.ts is up to date', () => {
    const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'relay-client-')), 'v1.ts');
    const run = spawnSync(process.execPath, [path.join(ROOT, 'node_modules', 'openapi-typescript', 'bin', 'cli.js'), 'schema/openapi.json', '--output', out], { cwd: ROOT, encoding: 'utf8' });
    expect(run.status).toBe(0);
    if (fs.readFileSync(out, 'utf8') !== fs.readFileSync(path.join(ROOT, 'packages', 'cli', 'src', 'api', 'v1.ts'), 'utf8')) {
      throw new Error('packages/cli/src/api/v1.ts is out of date: run `npm run client:generate` and commit it.');
    }
  });

  describe('against the API', () => {
    let api: TestApi;
    beforeAll(async () => {
      api = await startTestApi({ RELAY_API_RATE_LIMIT: '0' });
    });
    afterAll(() => api.close());

    it('answers typed data, retries a 401 once with a fresh token, and turns an error body into an ApiError', async () => {
      const ws = await createWorkspace(api.container.orm.em.fork());
      const good = await tokenFor(api.container, ws.user.id);
      const asked: boolean[] = [];
      const client = restClient(api.baseUrl, async ({ force }) => {
        asked.push(Boolean(force));
        return force ? good : 'expired-token';
      });
      const me = unwrap(await client.GET('/v1/me'));
      expect(me.email).toBe(ws.user.email);
      expect(asked).toEqual([false, true]);

      const missing = await client.GET('/v1/endpoints/{id}', { params: { path: { id: randomUUID() } }, headers: { 'x-project-id': ws.project.id } });
      expect(() => unwrap(missing)).toThrow(ApiError);
      expect(() => unwrap(missing)).toThrow(expect.objectContaining({ code: 'not_found', status: 404 }));
    });
  });
});
