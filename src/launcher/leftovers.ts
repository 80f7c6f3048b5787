import fs from 'node:fs';
import path from 'node:path';
import { LauncherError } from './launcher-error';

/** A process identified beyond its PID (PIDs are reused): its start time since boot and its command line. */
export interface ProcessIdentity {
  pid: number;
  /** Field 22 of /proc/<pid>/stat: clock ticks after boot; differs for any later process with the same PID. */
  startTime: string;
  cmdline: string;
}

export interface RecordedProcess extends ProcessIdentity {
  what: string;
  /** How it stops cleanly (PostgreSQL: SIGINT, its fast shutdown). */
  signal: NodeJS.Signals;
}

interface LaunchFile {
  launcher: ProcessIdentity;
  children: RecordedProcess[];
}

const FILE = 'relay-start.json';

/** Linux /proc; undefined when the process is gone (or on a system without /proc: nothing is ever stopped then). */
export function processIdentity(pid: number): ProcessIdentity | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid …": comm may hold spaces and parentheses, so count fields after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields[0] === 'Z') return undefined;
    const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
    return { pid, startTime: fields[19], cmdline };
  } catch {
    return undefined;
  }
}

function sameProcess(recorded: ProcessIdentity): boolean {
  const now = processIdentity(recorded.pid);
  return now !== undefined && now.startTime === recorded.startTime && now.cmdline === recorded.cmdline;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function stopProcess(recorded: RecordedProcess): Promise<void> {
  const signals: NodeJS.Signals[] = [recorded.signal, 'SIGKILL'];
  for (const signal of signals) {
    try {
      process.kill(recorded.pid, signal);
    } catch {
      return;
    }
    for (let waited = 0; waited < 10_000; waited += 100) {
      if (!sameProcess(recorded)) return;
      await sleep(100);
    }
  }
}

/**
 * What `relay start` started on a data directory, kept in <data dir>/relay-start.json while it
 * runs, so that the next start after a crash (kill -9, power off the terminal) stops them.
 */
export class LaunchRecord {
  private readonly file: string;
  private readonly children: RecordedProcess[] = [];

  constructor(dataDir: string) {
    this.file = path.join(dataDir, FILE);
  }

  /**
   * Stops the processes a previous `relay start` on this data directory left running, each only
   * when its PID still has the recorded start time and command line (never someone else's process).
   * Refuses while that launcher itself still runs. Returns "postgres (pid 123)" for each one stopped.
   */
  async stopLeftovers(): Promise<string[]> {
    let previous: LaunchFile;
    try {
      previous = JSON.parse(fs.readFileSync(this.file, 'utf8')) as LaunchFile;
    } catch {
      return [];
    }
    if (previous.launcher && sameProcess(previous.launcher)) {
      throw new LauncherError(`another \`relay start\` (pid ${previous.launcher.pid}) is running on ${path.dirname(this.file)}: stop it first, or set RELAY_DATA_DIR to another directory.`);
    }
    const stopped: string[] = [];
    // Last started first: Temporal before the PostgreSQL it may use.
    for (const child of [...(previous.children ?? [])].reverse()) {
      if (!sameProcess(child)) continue;
      await stopProcess(child);
      stopped.push(`${child.what} (pid ${child.pid})`);
    }
    fs.rmSync(this.file, { force: true });
    return stopped;
  }

  /** Records this launcher (call once leftovers are gone), then each child as it starts. */
  begin(): void {
    this.write();
  }

  add(what: string, pid: number | undefined, signal: NodeJS.Signals = 'SIGTERM'): void {
    const identity = pid === undefined ? undefined : processIdentity(pid);
    if (!identity) return;
    this.children.push({ ...identity, what, signal });
    this.write();
  }

  /** After a clean stop: nothing is left to find. */
  clear(): void {
    fs.rmSync(this.file, { force: true });
  }

  private write(): void {
    const launcher = processIdentity(process.pid);
    if (!launcher) return;
    fs.mkdirSync(path.dirname(this.file), { recursive: true });
    const tmp = `${this.file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify({ launcher, children: this.children } satisfies LaunchFile, null, 2) + '\n');
    fs.renameSync(tmp, this.file);
  }
}
