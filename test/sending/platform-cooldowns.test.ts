import { PlatformCooldowns } from '../../src/sending/platform-cooldowns';
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

describe('PlatformCooldowns', () => {
  it('is shared through the database, per platform', async () => {
    const workerA = new PlatformCooldowns(tc.container.orm);
    const workerB = new PlatformCooldowns(tc.container.orm);
    const until = new Date(Date.now() + 60_000);
    await workerA.set('chat_b', until);
    expect((await workerB.activeUntil('chat_b'))?.getTime()).toBe(until.getTime());
    expect(await workerB.activeUntil('chat_a')).toBeNull();
    expect(await workerB.activeUntil('chat_c')).toBeNull();
  });

  it('only ever extends a cooldown', async () => {
    const cooldowns = new PlatformCooldowns(tc.container.orm, 0);
    const later = new Date(Date.now() + 60_000);
    await cooldowns.set('chat_a', later);
    await cooldowns.set('chat_a', new Date(Date.now() + 1_000));
    expect((await new PlatformCooldowns(tc.container.orm).activeUntil('chat_a'))?.getTime()).toBe(later.getTime());
    expect((await cooldowns.activeUntil('chat_a'))?.getTime()).toBe(later.getTime());
  });

  it('reports nothing once the cooldown has passed', async () => {
    const cooldowns = new PlatformCooldowns(tc.container.orm, 0);
    await cooldowns.set('chat_c', new Date(Date.now() + 150));
    expect(await cooldowns.activeUntil('chat_c')).not.toBeNull();
    await new Promise((r) => setTimeout(r, 200));
    expect(await cooldowns.activeUntil('chat_c')).toBeNull();
  });

  it('caches reads for its interval: another worker sees a new cooldown after it', async () => {
    const reader = new PlatformCooldowns(tc.container.orm, 200);
    expect(await reader.activeUntil('chat_b')).toBeNull(); // cached: none
    await new PlatformCooldowns(tc.container.orm).set('chat_b', new Date(Date.now() + 60_000));
    expect(await reader.activeUntil('chat_b')).toBeNull(); // still the cached answer
    await new Promise((r) => setTimeout(r, 250));
    expect(await reader.activeUntil('chat_b')).not.toBeNull();
  });

  it('keeps the latest of concurrent sets from many workers', async () => {
    const base = Date.now() + 10_000;
    await Promise.all(Array.from({ length: 10 }, (_, i) => new PlatformCooldowns(tc.container.orm).set('chat_b', new Date(base + i * 1000))));
    expect((await new PlatformCooldowns(tc.container.orm).activeUntil('chat_b'))?.getTime()).toBe(base + 9000);
  });
});
