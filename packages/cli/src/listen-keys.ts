import type { Listener, SessionChange } from './listen.command';
import { parseDelayMs } from './local-forwarder';
import type { Condition } from './shared/conditions';
import { describeFilter, FilterRefused, parseEventTypes, parseFilter } from './listen-filter';
import { ask, PromptEscaped } from './prompt';

/** One key: an arrow's escape sequence (CSI `ESC [ A`, or SS3 `ESC O A` in application mode) or one character. */
const KEY = new RegExp(String.raw`\u001b[[O][A-D]|[\s\S]`, 'gu');

/**
 * The keys of a running `listen` (raw mode, only when stdin is a terminal):
 * ↑/↓ select a line, d its request and response, o open it in the dashboard, r replay, p pause/resume, f forward what was missed while away, c change the session, h help, q / Ctrl+C quit.
 */
export class ListenKeys {
  private readonly onData = (data: Buffer) => {
    for (const [key] of data.toString('utf8').matchAll(KEY)) this.press(key);
  };

  private constructor(private readonly listener: Listener) {}

  static attach(listener: Listener): ListenKeys | undefined {
    if (!process.stdin.isTTY) return undefined;
    const keys = new ListenKeys(listener);
    keys.listen();
    return keys;
  }

  private listen(): void {
    process.stdin.setRawMode(true);
    process.stdin.on('data', this.onData);
    process.stdin.resume();
  }

  detach(): void {
    process.stdin.off('data', this.onData);
    if (process.stdin.isTTY) process.stdin.setRawMode(false);
    process.stdin.pause();
  }

  private press(key: string): void {
    switch (key) {
      case '\x1b[A':
      case '\x1bOA':
        this.listener.select(-1);
        return;
      case '\x1b[B':
      case '\x1bOB':
        this.listener.select(1);
        return;
      case 'd':
        this.listener.showDetail();
        return;
      case 'o':
        this.listener.openInDashboard();
        return;
      case 'r':
        void this.listener.replayLast();
        return;
      case 'p':
        this.listener.togglePause();
        return;
      case 'f':
        void this.listener.forwardMissed();
        return;
      case 'c':
        void this.menu();
        return;
      case 'h':
      case '?':
        this.listener.help();
        return;
      case 'q':
      case '\x03': // Ctrl+C (raw mode turns it into a key)
      case '\x04': // Ctrl+D
        void this.listener.quit();
        return;
    }
  }

  /** `c`: line input for a moment (keys off), then `updateCliSession`. Esc at any question keeps the session as it was. */
  private async menu(): Promise<void> {
    this.detach();
    try {
      const s = this.listener.settings;
      const types = s.eventTypes.length > 0 ? s.eventTypes.join(',') : 'all';
      const filters = s.filters.length > 0 ? s.filters.map(describeFilter).join(' and ') : 'none';
      process.stderr.write(
        `change: 1) sources [${s.sources.map((e) => e.slug).join(', ')}]  2) transform [${s.transformName ?? 'none'}]  3) template [${s.templateName ?? 'none'}]  4) delay [${s.delayMs} ms]  ` +
          `5) event types [${types}]  6) filters [${filters}]   (Enter: back, Esc: keep)\n`,
      );
      const choice = await this.ask('choice: ');
      if (choice === '6') await this.changeFilters();
      else {
        const change = await this.askChange(choice);
        if (change) await this.listener.change(change);
      }
    } catch (err) {
      if ((err as Error).message === 'interrupted') return;
      process.stderr.write(err instanceof PromptEscaped ? 'unchanged\n' : `${(err as Error).message}\n`);
    }
    this.listen();
  }

  /**
   * `6`: the filters, one per line as `--filter` takes them (an empty line ends the list; none at all: every event).
   * A line the CLI cannot read, or a condition the API refuses, is said at once and asked again; the old filters stay until the new ones are accepted.
   */
  private async changeFilters(): Promise<void> {
    const texts: string[] = [];
    const filters: Condition[] = [];
    process.stderr.write("filters, one per line as --filter takes them ('<field> <op> <value>'); an empty line ends (none: every event)\n");
    for (;;) {
      const text = await this.ask(`filter ${texts.length + 1}: `);
      if (text !== '') {
        try {
          filters.push(parseFilter(text));
          texts.push(text);
        } catch (err) {
          process.stderr.write(`${(err as Error).message}\n`);
        }
        continue;
      }
      try {
        return await this.listener.change({ filters }, texts);
      } catch (err) {
        if (!(err instanceof FilterRefused)) throw err;
        // The API refused one (e.g. an invalid regular expression): said, left out, and the list goes on from there.
        process.stderr.write(`${err.message}\n`);
        texts.splice(err.index, 1);
        filters.splice(err.index, 1);
      }
    }
  }

  /** Ctrl+C in the menu quits `listen` as it does outside it (exit 0); Esc leaves the menu. */
  private ask(question: string): Promise<string> {
    return ask(question, { escapable: true, onInterrupt: () => void this.listener.quit() });
  }

  private async askChange(choice: string): Promise<SessionChange | undefined> {
    const cleared = (value: string) => (value === '' || value === '-' ? null : value);
    switch (choice) {
      case '1': {
        const slugs = await this.ask('source slugs, comma-separated (empty or * for every source): ');
        return { sourceSlugs: slugs === '' || slugs === '*' ? [] : slugs.split(',').map((slug) => slug.trim()).filter(Boolean) };
      }
      case '2':
        return { transformName: cleared(await this.ask('transform name (empty to clear): ')) };
      case '3':
        return { templateName: cleared(await this.ask('template name (empty to clear): ')) };
      case '4':
        return { delayMs: parseDelayMs(await this.ask('delay in ms (0-10000): ')) };
      case '5': {
        const types = await this.ask('event types, comma-separated as --event-type takes them (empty or * for every type): ');
        return { eventTypes: types === '*' ? [] : parseEventTypes([types]) };
      }
      default:
        return undefined;
    }
  }
}
