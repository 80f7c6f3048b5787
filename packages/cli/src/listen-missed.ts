import { CLI_MISSED_LIMIT } from './shared/limits';
import { uuidv7Millis } from './shared/ids';
import type { ListenScreen, MissedEvents } from './listen-screen';

/** How long `f` waits for one missed event to reach the local server before it replays the next (the session's delay comes on top). */
const FORWARD_WAIT_MS = 10_000;

/** What the missed events of a running `listen` need from it. */
export interface MissedHost {
  screen: ListenScreen;
  /** `cliMissedEvents`: ids, oldest first. */
  ask(): Promise<string[]>;
  /** `replayCliEvent` to this session only; true when the API made the replay. */
  replay(eventId: string): Promise<boolean>;
  /** What happens to them: `--forward-missed`, else `f` when there is a keyboard. */
  then(): MissedEvents['then'];
  /** The session's delay before each forward. */
  delayMs(): number;
}

/**
 * The events that arrived while no CLI was listening (docs/internals/cli-tunnel.md "Reconnecting"): looked for when the tunnel is up,
 * first and after each reconnection; offered (`f`) or, with --forward-missed, forwarded at once, oldest first.
 */
export class MissedEventsOffer {
  /** Waiting for `f`, oldest first. */
  private pending: string[] = [];
  /** The event being replayed, until its forward line is printed. */
  private readonly awaited = new Map<string, () => void>();
  private stopped = false;

  constructor(private readonly host: MissedHost) {}

  async find(): Promise<void> {
    try {
      // The server counts only what nobody received (not what the session's --filter left out, nor what was answered while paused).
      const found = await this.host.ask();
      const fresh = found.filter((id) => !this.pending.includes(id));
      if (fresh.length === 0) return;
      this.pending = [...this.pending, ...fresh].sort();
      const then = this.host.then();
      // Event ids are UUIDv7: the oldest one's time is when it arrived.
      this.host.screen.missed({ eventIds: this.pending, since: new Date(uuidv7Millis(this.pending[0])), limited: found.length >= CLI_MISSED_LIMIT, then });
      if (then === 'forwarding') await this.forward();
    } catch (err) {
      this.host.screen.notice(`could not look for missed events: ${(err as Error).message}`, 'warn');
    }
  }

  /** `f` (or --forward-missed): each missed event again, to this session only, oldest first, one after the other. */
  async forward(): Promise<void> {
    const events = this.pending.splice(0);
    if (events.length === 0) return this.host.screen.notice('no missed events to forward');
    this.host.screen.notice(`forwarding ${events.length} missed event${events.length === 1 ? '' : 's'}`);
    for (const eventId of events) {
      if (this.stopped) return;
      await this.replayAndWait(eventId);
    }
  }

  /** A forward line was printed: the next missed event may go. */
  forwarded(eventId: string): void {
    this.awaited.get(eventId)?.();
  }

  stop(): void {
    this.stopped = true;
  }

  /**
   * One missed event, and only then the next: each replay is its own delivery (its own workflow), so replayed all at
   * once they could reach the local server in any order. The wait ends when its line is printed, or after
   * FORWARD_WAIT_MS (say the session's filters now leave it out: it never comes).
   */
  private async replayAndWait(eventId: string): Promise<void> {
    let arrived!: () => void;
    const arrival = new Promise<void>((resolve) => (arrived = resolve));
    // Waited for by event id, set before the replay: its forward may come before replayCliEvent's answer.
    this.awaited.set(eventId, arrived);
    const timer = setTimeout(arrived, FORWARD_WAIT_MS + this.host.delayMs());
    timer.unref();
    try {
      if (await this.host.replay(eventId)) await arrival;
    } finally {
      clearTimeout(timer);
      this.awaited.delete(eventId);
    }
  }
}
