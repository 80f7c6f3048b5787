import fs from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ: 100 on every Linux the relay runs on). */
const TICKS = 100;

interface ProcStat {
  ppid: number;
  comm: string;
  ticks: number;
}

function readProcs(): Map<number, ProcStat> {
  const procs = new Map<number, ProcStat>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      // comm may hold spaces and parentheses: the fields after it start at the last ')'.
      const close = stat.lastIndexOf(')');
      const fields = stat.slice(close + 2).split(' ');
      procs.set(Number(entry), {
        comm: stat.slice(stat.indexOf('(') + 1, close),
        ppid: Number(fields[1]),
        ticks: Number(fields[11]) + Number(fields[12]), // utime + stime
      });
    } catch {
      /* exited meanwhile */
    }
  }
  return procs;
}

/** Ticks used by each of this process's direct children with all their descendants, keyed by the child's pid, plus `self`. */
function treeTicks(): { self: number; children: Map<number, { comm: string; ticks: number }>; machineBusy: number; machineTotal: number } {
  const procs = readProcs();
  const topOf = (pid: number): number | undefined => {
    for (let p = pid, hops = 0; hops < 64; hops++) {
      const ppid = procs.get(p)?.ppid;
      if (ppid === undefined || ppid <= 1) return undefined;
      if (ppid === process.pid) return p;
      p = ppid;
    }
    return undefined;
  };
  const children = new Map<number, { comm: string; ticks: number }>();
  for (const [pid, stat] of procs) {
    const top = topOf(pid);
    if (top === undefined) continue;
    const entry = children.get(top) ?? { comm: procs.get(top)!.comm, ticks: 0 };
    entry.ticks += stat.ticks;
    children.set(top, entry);
  }
  const cpu = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const idle = cpu[3] + cpu[4];
  const total = cpu.reduce((a, b) => a + b, 0);
  return { self: procs.get(process.pid)?.ticks ?? 0, children, machineBusy: total - idle, machineTotal: total };
}

export interface CpuProfile {
  seconds: number;
  /** Percent of one core, by process tree: this bench process (relay worker + dispatcher), then each child (temporal, postgres, the receiver). */
  percent_of_one_core: Record<string, number>;
  /** The whole machine (every engineer's work included), percent of all cores. */
  machine_busy_percent: number;
}

/**
 * Samples CPU use over a measured span, by process tree: shows whether Temporal,
 * PostgreSQL or the relay's own process bounds a run (the same figures `pidstat` gives).
 */
/** The label of this bench process itself (the relay worker + dispatcher when the bench runs them in-process). */
export const BENCH_PROCESS = 'bench process (relay worker + dispatcher)';

export function startCpuSampler(labels: (pid: number, comm: string) => string | undefined = () => undefined): () => CpuProfile {
  const started = performance.now();
  const before = treeTicks();
  return () => {
    const after = treeTicks();
    const seconds = (performance.now() - started) / 1000;
    const pct = (ticks: number) => Math.round((ticks / TICKS / seconds) * 1000) / 10;
    const percent: Record<string, number> = { [BENCH_PROCESS]: pct(after.self - before.self) };
    for (const [pid, entry] of after.children) {
      const used = entry.ticks - (before.children.get(pid)?.ticks ?? 0);
      if (used <= 0) continue;
      const label = labels(pid, entry.comm) ?? entry.comm;
      percent[label] = Math.round(((percent[label] ?? 0) + pct(used)) * 10) / 10;
    }
    const busy = (after.machineBusy - before.machineBusy) / Math.max(1, after.machineTotal - before.machineTotal);
    return { seconds: Math.round(seconds * 10) / 10, percent_of_one_core: percent, machine_busy_percent: Math.round(busy * 1000) / 10 };
  };
}

/** Groups of this process's threads, as `threadCpu` reports them. */
export const THREAD_GROUPS = {
  main: 'main thread (core-bridge calls, activities, dispatcher)',
  workflow: 'Node worker threads (the SDK workflow sandbox)',
  helpers: 'V8 and libuv helper threads (GC, compiler)',
  core: 'Temporal core (Rust threads)',
  exited: 'threads that exited during the span (the SDK sandbox per-call vm timeout watchdogs)',
} as const;

/** This process's threads now: ticks used and start time (ticks after boot) by thread id, and the process total. */
function readThreads(): { total: number; started: number; threads: Map<number, { comm: string; ticks: number; started: number }> } {
  const parse = (stat: string) => {
    const close = stat.lastIndexOf(')');
    const fields = stat.slice(close + 2).split(' ');
    return { comm: stat.slice(stat.indexOf('(') + 1, close), ticks: Number(fields[11]) + Number(fields[12]), started: Number(fields[19]) };
  };
  const self = parse(fs.readFileSync(`/proc/${process.pid}/stat`, 'utf8'));
  const threads = new Map<number, { comm: string; ticks: number; started: number }>();
  for (const tid of fs.readdirSync(`/proc/${process.pid}/task`)) {
    try {
      threads.set(Number(tid), parse(fs.readFileSync(`/proc/${process.pid}/task/${tid}/stat`, 'utf8')));
    } catch {
      /* exited meanwhile */
    }
  }
  return { total: self.ticks, started: self.started, threads };
}

/** Node's own helper threads by name, from Node 24 on (V8's platform workers, its delayed-task scheduler, the inspector's signal thread, libuv's pool). */
const NODE_HELPER_THREADS = new Set(['V8Worker', 'DelayedTaskSche', 'SignalInspector', 'libuv-worker']);

/**
 * The group of one of this process's threads. Until Node 22 every Node thread is named like the process (`node`):
 * those started with the process (within 2 s) are V8's and libuv's helpers, later ones Node worker threads. From
 * Node 24 Node names its threads: `MainThread`, `WorkerThread` (a worker without a name: the SDK's workflow
 * threads), and its helpers by role. Any other name is a Temporal core (Rust) thread.
 */
export function threadGroup(thread: { tid: number; comm: string; started: number }, process: { pid: number; comm: string; started: number }): string {
  if (thread.tid === process.pid) return THREAD_GROUPS.main;
  if (NODE_HELPER_THREADS.has(thread.comm)) return THREAD_GROUPS.helpers;
  if (thread.comm === 'WorkerThread') return THREAD_GROUPS.workflow;
  if (thread.comm === 'node' || thread.comm === process.comm) return thread.started - process.started <= 2 * TICKS ? THREAD_GROUPS.helpers : THREAD_GROUPS.workflow;
  return THREAD_GROUPS.core;
}

/**
 * Samples this process's CPU by thread group (`threadGroup`) over a span (Linux /proc), in ms
 * per `units` (deliveries). A CPU profile (`--cpu-prof`) cannot show this: it
 * samples wall time per JavaScript thread, so a thread blocked in native code
 * looks busy, and the Rust threads and V8's helpers do not appear at all.
 */
export function startThreadSampler(): (units: number) => Record<string, number> {
  const before = readThreads();
  return (units) => {
    const after = readThreads();
    const self = { pid: process.pid, comm: after.threads.get(process.pid)?.comm ?? 'node', started: after.started };
    const used: Record<string, number> = {};
    let live = 0;
    for (const [tid, t] of after.threads) {
      const ticks = t.ticks - (before.threads.get(tid)?.ticks ?? 0);
      live += ticks;
      const group = threadGroup({ tid, ...t }, self);
      used[group] = (used[group] ?? 0) + ticks;
    }
    // Threads that exited within the span are in the process's total only.
    used[THREAD_GROUPS.exited] = Math.max(0, after.total - before.total - live);
    return Object.fromEntries(Object.entries(used).map(([group, ticks]) => [group, Math.round(((ticks / TICKS) * 1000 * 100) / Math.max(1, units)) / 100]));
  };
}

/** Every descendant of `root` (itself included), by pid. */
function descendantsOf(procs: Map<number, ProcStat>, root: number): number[] {
  const children = new Map<number, number[]>();
  for (const [pid, stat] of procs) children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), pid]);
  const found: number[] = [];
  for (const queue = [root]; queue.length > 0; ) {
    const pid = queue.pop()!;
    if (!procs.has(pid)) continue;
    found.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return found;
}

/**
 * CPU by kind of process inside one process tree (`relay start`: the relay's Node process, the
 * PostgreSQL it started with all its backends, the Temporal dev server), in CPU-milliseconds over
 * the span; `kindOf` names a process's kind from its command name. A process that exits during the
 * span (a closed PostgreSQL backend) takes the CPU it used with it: pooled connections live on.
 */
export function startTreeSampler(root: number, kindOf: (comm: string, pid: number) => string): () => { seconds: number; cpu_ms: Record<string, number> } {
  const take = () => {
    const procs = readProcs();
    return new Map(descendantsOf(procs, root).map((pid) => [pid, procs.get(pid)!]));
  };
  const before = take();
  const started = performance.now();
  return () => {
    const after = take();
    const cpu: Record<string, number> = {};
    for (const [pid, stat] of after) {
      const kind = kindOf(stat.comm, pid);
      cpu[kind] = (cpu[kind] ?? 0) + ((stat.ticks - (before.get(pid)?.ticks ?? 0)) / TICKS) * 1000;
    }
    return { seconds: (performance.now() - started) / 1000, cpu_ms: cpu };
  };
}
