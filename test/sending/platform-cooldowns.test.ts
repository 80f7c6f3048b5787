import { PlatformCooldowns } from '../../src/sending/platform-cooldowns';
import { hashToken } from '../../src/common/secret-box';
import { createTestContainer, type TestContainer } from '../support/test-env';

let tc: TestContainer;
beforeAll(async () => {
  tc = await createTestContainer();
});
afterAll(async () => {
  await tc?.close();
});
beforeEach(async () => {
  await tc.container.orm.em.fork().getConnection().execute('delete from platform_cooldowns');
});

const TOKEN_X = 'bot-token-x.0001';
const TOKEN_Y = 'bot-token-y.0002';

describe('PlatformCooldowns', () => {
  it('is shared through the database, per platform and bot token', async () => {
    const workerA = new PlatformCooldowns(tc.container.orm);
    const workerB = new PlatformCooldowns(tc.container.orm);
    const until = new Date(Date.now() + 60_000);
    await workerA.set('chat_b', TOKEN_X, until);
    expect((await workerB.activeUntil('chat_b', TOKEN_X))?.getTime()).toBe(until.getTime());
    expect(await workerB.activeUntil('chat_b', TOKEN_Y)).toBeNull();
    expect(await workerB.activeUntil('chat_a', TOKEN_X)).toBeNull();
    expect(await workerB.activeUntil('chat_c', TOKEN_X)).toBeNull();
  });

  it('stores a fingerprint of the token, never the token', async () => {
    await new PlatformCooldowns(tc.container.orm).set('chat_b', TOKEN_X, new Date(Date.now() + 60_000));
    const rows = await tc.container.orm.em.fork().getConnection().execute('select * from platform_cooldowns');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ platform: 'chat_b', credential: hashToken(TOKEN_X) });
    expect(JSON.stringify(rows)).not.toContain(TOKEN_X);
  });

  it('only ever extends a cooldown', async () => {
    const cooldowns = new PlatformCooldowns(tc.container.orm, 0);
    const later = new Date(Date.now() + 60_000);
    await cooldowns.set('chat_a', TOKEN_X, later);
    await cooldowns.set('chat_a', TOKEN_X, new Date(Date.now() + 1_000));
    expect((await new PlatformCooldowns(tc.container.orm).activeUntil('chat_a', TOKEN_X))?.getTime()).toBe(later.getTime());
    expect((await cooldowns.activeUntil('chat_a', TOKEN_X))?.getTime()).toBe(later.getTime());
  });

  it('reports nothing once the cooldown has passed', async () => {
    const cooldowns = new PlatformCooldowns(tc.container.orm, 0);
    await cooldowns.set('chat_c', TOKEN_X, new Date(Date.now() + 150));
    expect(await cooldowns.activeUntil('chat_c', TOKEN_X)).not.toBeNull();
    await new Promise((r) => setTimeout(r, 200));
    expect(await cooldowns.activeUntil('chat_c', TOKEN_X)).toBeNull();
  });

  it('caches reads for its interval: another worker sees a new cooldown after it', async () => {
    const reader = new PlatformCooldowns(tc.container.orm, 200);
    expect(await reader.activeUntil('chat_b', TOKEN_X)).toBeNull(); // cached: none
    await new PlatformCooldowns(tc.container.orm).set('chat_b', TOKEN_X, new Date(Date.now() + 60_000));
    expect(await reader.activeUntil('chat_b', TOKEN_X)).toBeNull(); // still the cached answer
    await new Promise((r) => setTimeout(r, 250));
    expect(await reader.activeUntil('chat_b', TOKEN_X)).not.toBeNull();
  });

  it('keeps the latest of concurrent sets from many workers', async () => {
    const base = Date.now() + 10_000;
    await Promise.all(Array.from({ length: 10 }, (_, i) => new PlatformCooldowns(tc.container.orm).set('chat_b', TOKEN_X, new Date(base + i * 1000))));
    expect((await new PlatformCooldowns(tc.container.orm).activeUntil('chat_b', TOKEN_X))?.getTime()).toBe(base + 9000);
  });

  it('forgets cooldowns a day after they ended', async () => {
    const knex = tc.container.orm.em.getConnection().getKnex();
    await knex.raw(`insert into platform_cooldowns (platform, credential, until) values ('chat_b', 'old', now() - interval '2 days'), ('chat_b', 'recent', now() - interval '1 hour')`);
    await new PlatformCooldowns(tc.container.orm).set('chat_a', TOKEN_X, new Date(Date.now() + 1000));
    const { rows } = await knex.raw('select credential from platform_cooldowns order by credential');
    expect(rows.map((r: { credential: string }) => r.credential)).toEqual([hashToken(TOKEN_X), 'recent'].sort());
  });
});
