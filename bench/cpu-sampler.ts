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
