import { detailJson, type ForwardDetail, formatDetail } from './listen-inspect';
import { outcomeLabel } from './shared/outcomes';
import type { CliForward, ForwardResult } from './local-forwarder';

/**
 * What `relay listen` prints: one line per forwarded event (time, event
 * type, source, `POST <path>`, local status, latency, event id), with colour
 * only on a terminal that wants it, or one JSON object per line for scripts.
 */
export type OutputMode = 'pretty' | 'json';

export interface ForwardLine {
  at: Date;
  forward: Pick<CliForward, 'eventId' | 'eventType' | 'sourceSlug' | 'method' | 'attemptNumber'>;
  path: string;
  result: Pick<ForwardResult, 'statusCode' | 'latencyMs' | 'error' | 'skipped'>;
  /** `r`: a replay the user asked for. */
  replay?: boolean;
  /** The request and response (`d`; in every `--output json` line). */
  detail?: ForwardDetail;
}

/** Colour when stdout is a terminal, unless NO_COLOR is set (https://no-color.org) or the terminal is dumb. */
export function wantsColor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.TERM === 'dumb') return false;
  return stream.isTTY === true;
}

const SGR = { reset: '\x1b[0m', dim: '\x1b[2m', bold: '\x1b[1m', red: '\x1b[31m', green: '\x1b[32m', yellow: '\x1b[33m', cyan: '\x1b[36m' } as const;
type Paint = (style: keyof typeof SGR, text: string) => string;
const painter = (color: boolean): Paint => (color ? (style, text) => `${SGR[style]}${text}${SGR.reset}` : (_style, text) => text);

const pad = (text: string, width: number) => (text.length >= width ? text : text + ' '.repeat(width - text.length));
const clock = (at: Date) => at.toTimeString().slice(0, 8);

/**
 * The local answer in the dashboard's words (packages/cli/src/shared/outcomes.ts): its status code as the
 * Events list's Response column shows it, `no response: …` when none came, `skipped` when paused.
 */
function statusText(result: ForwardLine['result']): { text: string; style: keyof typeof SGR } {
  if (result.skipped) return { text: `${outcomeLabel('skipped')} (paused)`, style: 'yellow' };
  if (result.statusCode === null) return { text: `no response: ${result.error ?? 'no answer'}`, style: 'red' };
  const style = result.statusCode < 300 ? 'green' : result.statusCode < 500 ? 'yellow' : 'red';
  return { text: String(result.statusCode), style };
}

export function formatForwardLine(line: ForwardLine, opts: { color: boolean }): string {
  const paint = painter(opts.color);
  const status = statusText(line.result);
  const latency = line.result.skipped ? '' : `${line.result.latencyMs} ms`;
  const marks = [line.replay ? 'replay' : '', line.forward.attemptNumber > 1 ? `attempt ${line.forward.attemptNumber}` : ''].filter(Boolean).join(', ');
  return [
    paint('dim', clock(line.at)),
    paint('bold', pad(line.forward.eventType || '(no type)', 24)),
    pad(line.forward.sourceSlug, 16),
    pad(`${line.forward.method} ${line.path}`, 20),
    '→',
    paint(status.style, status.text),
    pad(latency, 8),
    paint('dim', line.forward.eventId),
    marks ? paint('cyan', `(${marks})`) : '',
  ]
    .filter(Boolean)
    .join('  ')
    .trimEnd();
}

/** Events that arrived while no CLI was listening, and what happens to them (`then`). */
export interface MissedEvents {
  /** Oldest first. */
  eventIds: string[];
  /** When the oldest arrived. */
  since: Date;
  /** The API answered its most (1000): more may have arrived. */
  limited: boolean;
  then: 'press f' | 'forwarding' | 'no keyboard';
}

/** HH:MM:SS today, else with the date. */
function when(at: Date, now = new Date()): string {
  const day = (d: Date) => `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
  return day(at) === day(now) ? clock(at) : `${day(at)} ${clock(at)}`;
}

export function formatMissed(missed: MissedEvents, now = new Date()): string {
  const n = missed.eventIds.length;
  const them = n === 1 ? 'it' : 'them';
  const what = `${n} event${n === 1 ? '' : 's'} arrived while no CLI was listening (since ${when(missed.since, now)}${missed.limited ? ', the oldest ones: more may have arrived' : ''})`;
  if (missed.then === 'press f') return `${what}: press f to forward ${them}`;
  if (missed.then === 'forwarding') return what;
  return `${what}: not forwarded (no keyboard: start listen with --forward-missed to forward missed events at start)`;
}

export function formatForwardJson(line: ForwardLine): string {
  return JSON.stringify({
    type: 'forward',
    time: line.at.toISOString(),
    event_id: line.forward.eventId,
    event_type: line.forward.eventType,
    source: line.forward.sourceSlug,
    method: line.forward.method,
    path: line.path,
    attempt: line.forward.attemptNumber,
    status: line.result.statusCode,
    latency_ms: line.result.latencyMs,
    error: line.result.error,
    skipped: line.result.skipped === true,
    replay: line.replay === true,
    ...(line.detail ? detailJson(line.detail) : {}),
  });
}

/** The output of one `listen` run: forward lines and notices (ready, paused, reconnecting, …). */
export class ListenScreen {
  private readonly color: boolean;

  constructor(
    private readonly mode: OutputMode,
    private readonly out: NodeJS.WritableStream & { isTTY?: boolean } = process.stdout,
    env: NodeJS.ProcessEnv = process.env,
  ) {
    this.color = mode === 'pretty' && wantsColor(out, env);
  }

  forward(line: ForwardLine): void {
    this.out.write((this.mode === 'json' ? formatForwardJson(line) : formatForwardLine(line, { color: this.color })) + '\n');
  }

  /** ↑/↓: which line `d` and `o` act on. */
  selected(line: ForwardLine, index: number, count: number): void {
    if (this.mode === 'json') return this.notice(`selected ${index} of ${count}: ${line.forward.eventId}`);
    const paint = painter(this.color);
    this.out.write(`${paint('cyan', '▸')} ${index}/${count}  ${formatForwardLine(line, { color: this.color })}   ${paint('dim', '(d detail, o open)')}\n`);
  }

  /** `d`: the selected line's request and response. */
  detail(line: ForwardLine & { detail: ForwardDetail }): void {
    if (this.mode === 'json') {
      this.out.write(JSON.stringify({ type: 'detail', time: new Date().toISOString(), event_id: line.forward.eventId, ...detailJson(line.detail) }) + '\n');
      return;
    }
    const title = `event ${line.forward.eventId}  ${line.forward.eventType || '(no type)'} from ${line.forward.sourceSlug}, attempt ${line.forward.attemptNumber}`;
    this.out.write(formatDetail(title, line.detail).join('\n') + '\n');
  }

  /** "N events arrived while no CLI was listening"; in JSON, a `missed` line with their ids. */
  missed(missed: MissedEvents): void {
    if (this.mode === 'pretty') return this.notice(formatMissed(missed));
    const { eventIds, since, limited, then } = missed;
    const action = then === 'press f' ? 'offered' : then === 'forwarding' ? 'forwarding' : 'not_forwarded';
    this.out.write(JSON.stringify({ type: 'missed', time: new Date().toISOString(), count: eventIds.length, since: since.toISOString(), limited, action, event_ids: eventIds }) + '\n');
  }

  notice(message: string, level: 'info' | 'warn' = 'info'): void {
    if (this.mode === 'json') {
      this.out.write(JSON.stringify({ type: 'notice', time: new Date().toISOString(), level, message }) + '\n');
      return;
    }
    const paint = painter(this.color);
    this.out.write(`${paint(level === 'warn' ? 'yellow' : 'cyan', '>')} ${message}\n`);
  }
}

export const KEY_HELP = [
  'keys:  ↑/↓  select an event line',
  '       d  request and response of the selected event (headers, first 4 KiB of each body)',
  '       o  open the selected event in the dashboard',
  '       r  replay the last event',
  '       p  pause / resume forwarding (paused events are recorded as skipped)',
  '       f  forward the events that arrived while no CLI was listening',
  '       c  change source, transform, template, delay, event types or filters',
  '       h  this help',
  '       q  quit (Ctrl+C too); the destination stays for the next run',
].join('\n');
