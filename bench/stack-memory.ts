import fs from 'node:fs';

/**
 * The memory of every process of the stack `npm start` runs, as the kernel accounts it:
 * PSS (proportional set size, /proc/<pid>/smaps_rollup), which shares each page among the
 * processes that map it, so PostgreSQL's shared buffers and the binaries' text count once
 * across all its backends (RSS counts them once per process). Linux only.
 */

/** What a process of the stack is, by its command name and command line. */
export type StackPart = 'npm' | 'relay' | 'temporal' | 'postgres backends' | 'postgres auxiliary';
export const STACK_PARTS: readonly StackPart[] = ['npm', 'relay', 'temporal', 'postgres backends', 'postgres auxiliary'];

export interface ProcessMemory {
  pid: number;
  part: StackPart | 'other';
  /** The command line, shortened (PostgreSQL names each process's role in it). */
  command: string;
  rss_kib: number;
  pss_kib: number;
  pss_anon_kib: number;
  pss_file_kib: number;
  pss_shmem_kib: number;
}

/** The relay process's own split (its /metrics: prom-client's default gauges, the main thread's V8 isolate only). */
export interface RelayHeap {
  /** V8 heap of the main isolate: reserved (total) and in use. */
  heap_total_mib: number;
  heap_used_mib: number;
  /** Heap spaces of the main isolate, reserved size (new, old, code, large objects, …). */
  spaces_mib: Record<string, number>;
  /** Memory V8 objects hold outside the heap (Buffers, ArrayBuffers). */
  external_mib: number;
  /** PSS beyond the main heap and external memory: the workflow threads' own isolates, the SDK's Rust core, code, allocator arenas. */
  rest_of_pss_mib: number;
}

export interface StackMemory {
  /** PSS by part of the stack, MiB. */
  pss_mib: Record<StackPart | 'total', number>;
  postgres_backends: number;
  processes: ProcessMemory[];
  relay_heap?: RelayHeap;
}

const mib = (kib: number) => Math.round((kib / 1024) * 10) / 10;

function readRollup(pid: number): Record<string, number> | undefined {
  try {
    const fields: Record<string, number> = {};
    for (const line of fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8').split('\n')) {
      const m = /^(\w+):\s+(\d+) kB/.exec(line);
      if (m) fields[m[1]] = Number(m[2]);
    }
    return fields;
  } catch {
    return undefined; // exited meanwhile
  }
}

interface Proc {
  pid: number;
  ppid: number;
  comm: string;
  command: string;
}

/** `root` and every process under it (processes, not threads: /proc lists only thread-group leaders). */
export function processTree(root: number): Proc[] {
  const procs: Proc[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const command = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
      procs.push({ pid: Number(entry), ppid: Number(stat.slice(close + 2).split(' ')[1]), comm: stat.slice(stat.indexOf('(') + 1, close), command });
    } catch {
      /* exited meanwhile */
    }
  }
  const under = new Set([root]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of procs) {
      if (under.has(p.ppid) && !under.has(p.pid)) {
        under.add(p.pid);
        grew = true;
      }
    }
  }
  return procs.filter((p) => under.has(p.pid));
}

/**
 * The part of the stack a process is: npm and the shell it runs the script in; the relay (by its command line: Node 24
 * names its main thread, and so the process, `MainThread`); Temporal; PostgreSQL's client backends and the rest of its processes.
 */
export function partOf(p: { comm: string; command: string }): StackPart | 'other' {
  if (p.comm.startsWith('npm') || p.comm === 'sh') return 'npm';
  if (isNodeProcess(p)) return 'relay';
  if (p.comm.startsWith('temporal')) return 'temporal';
  if (p.comm === 'postgres') return /^postgres: \S+ \S+ \S+\(\d+\)|^postgres: \S+ \S+ \[local\]/.test(p.command) ? 'postgres backends' : 'postgres auxiliary';
  return 'other';
}

/** A Node process, on any version (`node` until Node 22, `MainThread` from Node 24, a renamed title otherwise). */
export function isNodeProcess(p: { comm: string; command: string }): boolean {
  return p.comm === 'node' || p.comm === 'MainThread' || /(^|\/)node\s/.test(p.command);
}

/** PSS of every process under `root` (the `npm start` process, or the relay's own when started without npm). */
export function stackMemory(root: number): StackMemory {
  const processes: ProcessMemory[] = [];
  for (const p of processTree(root)) {
    const r = readRollup(p.pid);
    if (!r) continue;
    processes.push({
      pid: p.pid,
      part: partOf(p),
      command: p.command.slice(0, 90),
      rss_kib: r.Rss ?? 0,
      pss_kib: r.Pss ?? 0,
      pss_anon_kib: r.Pss_Anon ?? 0,
      pss_file_kib: r.Pss_File ?? 0,
      pss_shmem_kib: r.Pss_Shmem ?? 0,
    });
  }
  const sum = (part?: StackPart) => mib(processes.filter((p) => part === undefined || p.part === part).reduce((a, p) => a + p.pss_kib, 0));
  const pss = Object.fromEntries([...STACK_PARTS.map((part) => [part, sum(part)]), ['total', sum()]]) as Record<StackPart | 'total', number>;
  return { pss_mib: pss, postgres_backends: processes.filter((p) => p.part === 'postgres backends').length, processes };
}

/** The relay process's V8 heap beside its PSS, from its /metrics (prom-client's default gauges). */
export async function relayHeap(metricsUrl: string, relayPssMib: number): Promise<RelayHeap | undefined> {
  let text: string;
  try {
    text = await (await fetch(metricsUrl)).text();
  } catch {
    return undefined;
  }
  const gauge = (name: string, label?: string) => {
    const re = new RegExp(`^relay_${name}${label ? `\\{space="${label}"\\}` : ''} ([0-9.e+]+)$`, 'm');
    const m = re.exec(text);
    return m ? Math.round((Number(m[1]) / 2 ** 20) * 10) / 10 : NaN;
  };
  const spaces: Record<string, number> = {};
  for (const m of text.matchAll(/^relay_nodejs_heap_space_size_total_bytes\{space="(\w+)"\} ([0-9.e+]+)$/gm)) spaces[m[1]] = Math.round((Number(m[2]) / 2 ** 20) * 10) / 10;
  const total = gauge('nodejs_heap_size_total_bytes');
  const external = gauge('nodejs_external_memory_bytes');
  return {
    heap_total_mib: total,
    heap_used_mib: gauge('nodejs_heap_size_used_bytes'),
    spaces_mib: spaces,
    external_mib: external,
    rest_of_pss_mib: Math.round((relayPssMib - total - external) * 10) / 10,
  };
}

/** One line per part: "relay 201.3", …, with the backends' count. */
export function memoryCell(m: StackMemory | undefined, part: StackPart | 'total'): string {
  if (!m) return '';
  return part === 'postgres backends' ? `${m.pss_mib[part]} (${m.postgres_backends})` : String(m.pss_mib[part]);
}

/** A table of the processes (PostgreSQL's client backends on one row): PSS and its anonymous / file / shared-memory parts, MiB. */
export function processTable(m: StackMemory): string {
  const rows: Array<{ what: string; pss: number; anon: number; file: number; shmem: number; rss: number }> = [];
  const add = (what: string, ps: ProcessMemory[]) => {
    const sum = (k: keyof ProcessMemory) => mib(ps.reduce((a, p) => a + (p[k] as number), 0));
    rows.push({ what, pss: sum('pss_kib'), anon: sum('pss_anon_kib'), file: sum('pss_file_kib'), shmem: sum('pss_shmem_kib'), rss: sum('rss_kib') });
  };
  for (const p of m.processes.filter((p) => p.part !== 'postgres backends')) add(`${p.part}: ${p.command.replace(/^\S*\/(postgres|temporal) /, '$1 ').slice(0, 60)}`, [p]);
  const backends = m.processes.filter((p) => p.part === 'postgres backends');
  if (backends.length) add(`postgres backends (${backends.length} connections)`, backends);
  return [
    '| process | PSS | anonymous | file | shared memory | RSS |',
    '|---|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.what.replace(/\|/g, '\\|')} | ${r.pss} | ${r.anon} | ${r.file} | ${r.shmem} | ${r.rss} |`),
  ].join('\n');
}
