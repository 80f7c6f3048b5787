import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { saveFigures, writeBenchSection } from './bench-output';
import { STACK_PARTS, type StackMemory, memoryCell, processTable } from './stack-memory';
import { PHASES, type Phase, USER_PATH_DEFAULTS, type UserPathFigures, type UserPathOptions, runUserPath } from './user-path';

/**
 * `npm run bench:user [-- --repo DIR] [--compare DIR | --compare-node PATH] [--rounds 1] [--node PATH]
 *   [--phases ingest,delivery,paced] [--duration 10] [--connections 64] [--events 3000] [--paced-rate 20]
 *   [--paced-seconds 10] [--idle-seconds 10] [--cpu-prof DIR] [--pg-stats] [--no-save]`
 *
 * The service as users run it (bench/user-path.ts): `npm start` of a checkout, ingest and delivery
 * together, CPU per event and per delivery of the relay process, Temporal and PostgreSQL, beside the
 * same run's empty-workflow ceiling of the dev server and a do-nothing HTTP server's rate.
 * Memory: the PSS of every process of the stack (npm, the relay, the Temporal dev server, each PostgreSQL
 * process) idle after start and after the run, and the relay's V8 heap beside its PSS (bench/stack-memory.ts).
 * `--compare DIR` runs another checkout (e.g. a clone of an earlier commit, `npm ci`'d) and this one
 * back to back, `--rounds` times, alternating which goes first, and prints them side by side;
 * `--compare-node PATH` does the same with this checkout on two Node binaries (`--node`, default the
 * bench's own, and PATH), each first on PATH for `npm start` as a user's shell would have it.
 * Writes bench/results/user-path.json (this checkout's last run) and the `## As users run it`
 * section of docs/benchmarks.md; with --compare also bench/results/user-path-compare.json.
 */
const REPO = path.resolve(__dirname, '..');

function parse(args: string[]): { opts: UserPathOptions; compare?: string; compareNode?: string; rounds: number; save: boolean } {
  const get = (name: string) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const num = (name: string, fallback: number) => (get(name) === undefined ? fallback : Number(get(name)));
  const phases = (get('phases')?.split(',') ?? PHASES) as Phase[];
  for (const p of phases) if (!PHASES.includes(p)) throw new Error(`--phases: "${p}" is not one of ${PHASES.join(', ')}`);
  const d = USER_PATH_DEFAULTS;
  return {
    opts: {
      repo: path.resolve(get('repo') ?? REPO),
      phases,
      duration: num('duration', d.duration),
      connections: num('connections', d.connections),
      payloadBytes: num('payload-bytes', d.payloadBytes),
      events: num('events', d.events),
      sendConcurrency: num('send-concurrency', d.sendConcurrency),
      pacedRate: num('paced-rate', d.pacedRate),
      pacedSeconds: num('paced-seconds', d.pacedSeconds),
      ceilingEvents: num('ceiling-events', d.ceilingEvents),
      cpuProfDir: get('cpu-prof'),
      pgStats: args.includes('--pg-stats'),
      node: get('node') && path.resolve(get('node')!),
      idleSeconds: num('idle-seconds', d.idleSeconds),
    },
    compare: get('compare') && path.resolve(get('compare')!),
    compareNode: get('compare-node') && path.resolve(get('compare-node')!),
    rounds: num('rounds', 1),
    save: !args.includes('--no-save'),
  };
}

const cpuCell = (ms: Record<string, number>) => `relay ${ms.relay} / temporal ${ms.temporal} / postgres ${ms.postgres}`;

/** A measure and its value; `headline` rows make the first table, the one docs/benchmarks.md shows. */
type Row = [label: string, value: string, headline?: 'headline'];

/** The rows every report shows, one value per run. */
export function userPathRows(f: UserPathFigures): Row[] {
  const rows: Row[] = [
    ['checkout', f.commit],
    ['Node', f.node ?? ''],
    ['load average (1 min) start → end', `${f.load_average_1m.start} → ${f.load_average_1m.end}`, 'headline'],
    ['reference: do-nothing HTTP server, requests/s', String(f.references.do_nothing_http_requests_per_second), 'headline'],
    ["reference: the dev server's empty-workflow ceiling, workflows/s", String(f.references.ceiling_empty_workflows_per_second), 'headline'],
    ["reference: Temporal's CPU ms per empty workflow (ceiling run)", String(f.references.ceiling_temporal_cpu_ms_per_workflow)],
  ];
  if (f.ingest) {
    const i = f.ingest;
    rows.push(
      ['ingest: events/s (202s)', String(i.events_per_second), 'headline'],
      ['ingest: p50 / p99 / max ms', `${i.latency_ms.p50} / ${i.latency_ms.p99} / ${i.latency_ms.max}`, 'headline'],
      ['ingest: cores used (relay / temporal / postgres)', `${i.cpu.cores.relay} / ${i.cpu.cores.temporal} / ${i.cpu.cores.postgres}`],
      ['ingest: CPU ms per event, until fanned out', cpuCell(i.cpu_until_fanned_out.ms_per_unit)],
      ['ingest: outbox left at the end / delivered during', `${i.outbox_at_end} / ${i.delivered_during}`],
    );
  }
  if (f.delivery) {
    const d = f.delivery;
    rows.push(
      ['delivery: deliveries/s at the receiver', String(d.deliveries_per_second), 'headline'],
      ['delivery: ratio to the ceiling (target ≥ 0.9)', String(d.ratio_to_ceiling), 'headline'],
      ['delivery: CPU ms per delivery', cpuCell(d.cpu.ms_per_unit)],
      ['delivery: cores used (relay / temporal / postgres)', `${d.cpu.cores.relay} / ${d.cpu.cores.temporal} / ${d.cpu.cores.postgres}`],
    );
  }
  if (f.paced) {
    rows.push([`paced ${f.paced.events_per_second}/s: send → receive p50 / p99 / max ms`, `${f.paced.send_to_receive_ms.p50} / ${f.paced.send_to_receive_ms.p99} / ${f.paced.send_to_receive_ms.max}`, 'headline']);
    const t = f.paced.timeline_ms;
    if (t) rows.push(['paced: median ms to commit / fan-out / claim / receiver / record', `${t.to_ingest_commit} / ${t.to_fan_out} / ${t.to_claim} / ${t.to_receiver} / ${t.to_record}`]);
  }
  rows.push(['RSS after (relay / temporal), MiB', `${f.rss_mib_after.relay} / ${f.rss_mib_after.temporal}`]);
  if (f.memory) rows.push(...memoryRows(f.memory.idle, 'idle after start'), ...(f.memory.after ? memoryRows(f.memory.after, 'after the run') : []));
  return rows;
}

const PARTS_LABEL = 'npm / relay / temporal / pg backends (n) / pg other';

/** PSS of the stack (bench/stack-memory.ts) and the relay process's split, at one moment. */
function memoryRows(m: StackMemory, when: string): Row[] {
  const target = when === 'idle after start' ? 300 : 512;
  const rows: Row[] = [
    [`PSS ${when}, MiB (target ≤ ${target})`, String(m.pss_mib.total), 'headline'],
    [`PSS ${when}: ${PARTS_LABEL}`, STACK_PARTS.map((p) => memoryCell(m, p)).join(' / ')],
  ];
  const h = m.relay_heap;
  if (h) {
    const spaces = ['new', 'old', 'code', 'large_object'].map((s) => h.spaces_mib[s] ?? NaN).join(' / ');
    rows.push([`relay ${when}: heap used / reserved (new / old / code / large), external, rest, MiB`, `${h.heap_used_mib} / ${h.heap_total_mib} (${spaces}), ${h.external_mib}, ${h.rest_of_pss_mib}`]);
  }
  return rows;
}

/** The runs side by side: every row, or only the headline rows, or only the others. */
export function table(runs: UserPathFigures[], names: string[], rows: 'all' | 'headline' | 'others' = 'all'): string {
  const perRun = runs.map(userPathRows);
  const wanted = perRun[0].map((row, r) => ({ row, r })).filter(({ row }) => rows === 'all' || (row[2] === 'headline') === (rows === 'headline'));
  return [
    `| measure | ${names.join(' | ')} |`,
    `|---|${names.map(() => '---').join('|')}|`,
    ...wanted.map(({ row: [label], r }) => `| ${label} | ${perRun.map((cells) => cells[r]?.[1] ?? '').join(' | ')} |`),
  ].join('\n');
}

export async function main(args: string[]): Promise<void> {
  const { opts, compare, compareNode, rounds, save } = parse(args);
  const say = (line: string) => process.stderr.write(`${line}\n`);
  if (!compare && !compareNode) {
    const figures = await runUserPath(opts, say);
    process.stdout.write(`\n${table([figures], [path.basename(opts.repo)])}\n${details(figures)}`);
    if (save && opts.repo === REPO) {
      saveFigures(path.join(REPO, 'bench', 'results', 'user-path.json'), { date: new Date().toISOString(), machine: machine(), options: opts, figures });
      writeDoc(figures, opts);
    }
    return;
  }
  // Two setups: another checkout (--compare DIR), or this checkout on another Node (--compare-node PATH).
  const setups: Array<{ name: string; opts: UserPathOptions }> = compare
    ? [{ name: path.basename(compare), opts: { ...opts, repo: compare } }, { name: path.basename(opts.repo), opts }]
    : [{ name: nodeName(opts.node), opts }, { name: nodeName(compareNode), opts: { ...opts, node: compareNode } }];
  const runs: Array<{ name: string; figures: UserPathFigures }> = [];
  for (let round = 0; round < rounds; round++) {
    // Alternating which goes first, so a machine getting busier favours neither.
    const order = round % 2 === 0 ? setups : [...setups].reverse();
    for (const setup of order) runs.push({ name: `${setup.name} #${round + 1}`, figures: await runUserPath(setup.opts, say) });
  }
  process.stdout.write(`\n${table(runs.map((r) => r.figures), runs.map((r) => r.name))}\n`);
  if (save) saveFigures(path.join(REPO, 'bench', 'results', 'user-path-compare.json'), { date: new Date().toISOString(), machine: machine(), options: opts, compare, compareNode, runs });
}

const nodeName = (node: string | undefined) => `node ${spawnSync(node ?? process.execPath, ['--version'], { encoding: 'utf8' }).stdout.trim()}`;

/** What a profiling run needs beside the table: pg_stat_statements' top statements per phase, the delivery phase's clock window. */
function details(f: UserPathFigures): string {
  const lines: string[] = [];
  for (const [phase, top] of [['ingest', f.ingest?.pg_top_statements], ['delivery', f.delivery?.pg_top_statements]] as const) {
    if (!top) continue;
    lines.push(`\nPostgreSQL, ${phase}: top statements by execution time (ms per ${phase === 'ingest' ? 'event' : 'delivery'}, calls, statement)`);
    for (const s of top) lines.push(`  ${String(s.ms_per_unit).padStart(8)}  ${String(s.calls).padStart(7)}  ${s.query}`);
  }
  if (f.delivery?.monotonic_window_us) lines.push(`\ndelivery phase, CLOCK_MONOTONIC µs (scripts/cpu-profile-top.mjs --window): ${f.delivery.monotonic_window_us.join(' ')}`);
  return lines.length ? `${lines.join('\n')}\n` : '';
}

const machine = () => ({ cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version });

export function writeDoc(f: UserPathFigures, opts: UserPathOptions): void {
  const m = machine();
  writeBenchSection(
    'user-path',
    [
      '## As users run it (`npm run bench:user`)',
      '',
      `The headline figures: the service started by \`npm start\` in a fresh clone (npm runs \`${f.start_command}\`: one process with the API, the outbox dispatcher and the Temporal worker; the embedded PostgreSQL and the Temporal dev server on its on-disk SQLite file, with the launcher's settings; search indexing on; no NODE_ENV or LOG_LEVEL set), configured through the API (a growth-plan organization, sources linked to a signed webhook destination at a local receiver). Ingest: ${opts.connections} connections of signed ${opts.payloadBytes}-byte push-like bodies for ${opts.duration} s while fan-out, search rows and deliveries run. Delivery: ${opts.events} events sent ${opts.sendConcurrency} at a time, deliveries/s from the first send to the last arrival. Paced: ${opts.pacedRate} events/s for ${opts.pacedSeconds} s, send → arrival at the receiver, and the median of each step on the way from the rows' own timestamps (the transaction that stored the event began, the fan-out's began, the claim's began, the receiver got it, the attempt was recorded). CPU by process from /proc. Memory: PSS (\`/proc/<pid>/smaps_rollup\`, which counts a page shared by several processes, such as PostgreSQL's shared buffers, once in all) of every process of the stack, ${opts.idleSeconds} s after \`/readyz\` first answers (idle) and after the last phase; the relay's V8 heap (its \`/metrics\`: the main thread's isolate) beside its PSS, the rest being the workflow thread's isolate, the Temporal SDK's native core, compiled code and the allocator's arenas. Beside them, measured in the same run: the dev server's empty-workflow ceiling and a do-nothing HTTP server's rate under the same load, since absolute figures vary between machines. The component benches below (Ingress, Delivery) measure parts of this path alone.`,
      '',
      `${m.cpus} cores (${m.model ?? 'unknown CPU'}), the service on Node ${f.node}, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC; other work may share the machine (the load average is in the table).`,
      '',
      table([f], ['`npm start`'], 'headline'),
      '',
      'The other measures of the same run:',
      '',
      table([f], ['`npm start`'], 'others'),
      '',
      ...(f.memory.after ? ['After the run, by process (MiB; PSS = anonymous + file + shared memory, each page divided among the processes that map it; RSS counts it in each):', '', processTable(f.memory.after), ''] : []),
      'Targets on a quiet 2-core machine: deliveries/s ≥ 0.9 of the ceiling; ingest ≥ 4,000 events/s at p99 ≤ 60 ms; paced p50 ≤ 10 ms, p99 ≤ 30 ms; the whole stack ≤ 300 MiB PSS idle and ≤ 512 MiB after the run, the relay process ≤ 200 MiB. Before/after on one machine: `npm run bench:user -- --compare <other checkout> --rounds 2`; two Node versions: `npm run bench:user -- --compare-node <path to another node> --rounds 2`. What the CPU goes to: docs/internals/benchmark-methods.md ("Delivery").',
    ].join('\n'),
  );
}
