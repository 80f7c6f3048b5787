import { PassThrough } from 'node:stream';
import { uuidv7 } from './shared/ids';
import { MissedEventsOffer, type MissedHost } from './listen-missed';
import { ListenScreen, type MissedEvents } from './listen-screen';

/** A host whose API answers `found` and records each replay; `forwarded` is called by the test (the tunnel, in listen). */
function host(found: string[][], then: MissedEvents['then'] = 'press f') {
  const out = new PassThrough();
  const replays: string[] = [];
  const answers = [...found];
  const h: MissedHost = {
    screen: new ListenScreen('pretty', out),
    ask: async () => answers.shift() ?? [],
    replay: async (eventId) => {
      replays.push(eventId);
      return true;
    },
    then: () => then,
    delayMs: () => 0,
  };
  const text = () => String(out.read() ?? '');
  return { h, replays, text };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('missed events of a listen session', () => {
  // Today (an older day is shown with its date), at a time a second apart from one event to the next.
  const arrived = new Date();
  arrived.setHours(8, 0, 0, 0);
  const [a, b, c] = [0, 1, 2].map((s) => uuidv7(arrived.getTime() + s * 1000));

  it('offers what the API found, adds later finds once, and says since when (the oldest id’s time)', async () => {
    const { h, text } = host([[b, a], [a, c]]);
    const offer = new MissedEventsOffer(h);
    await offer.find();
    expect(text()).toMatch(new RegExp(`2 events arrived while no CLI was listening \\(since ${arrived.toTimeString().slice(0, 8)}\\): press f`));
    await offer.find();
    expect(text()).toMatch(/3 events arrived while no CLI was listening/);
    await offer.find();
    expect(text()).toBe('');
  });

  it('f replays them oldest first, each only once the previous one was forwarded', async () => {
    const { h, replays, text } = host([[c, a, b]]);
    const offer = new MissedEventsOffer(h);
    await offer.find();
    const done = offer.forward();
    await tick();
    expect(replays).toEqual([a]);
    await tick();
    expect(replays).toEqual([a]);
    offer.forwarded(a);
    await tick();
    expect(replays).toEqual([a, b]);
    offer.forwarded(b);
    await tick();
    offer.forwarded(c);
    await done;
    expect(replays).toEqual([a, b, c]);
    expect(text()).toMatch(/forwarding 3 missed events/);
    await offer.forward();
    expect(text()).toMatch(/no missed events to forward/);
  });

  it('--forward-missed forwards at once, without "press f"; stop ends the replays', async () => {
    const { h, replays, text } = host([[a, b]], 'forwarding');
    const offer = new MissedEventsOffer(h);
    const found = offer.find();
    await tick();
    expect(replays).toEqual([a]);
    offer.stop();
    offer.forwarded(a);
    await found;
    expect(replays).toEqual([a]);
    expect(text()).not.toMatch(/press f/);
  });
});
