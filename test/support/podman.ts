import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const REPO = path.resolve(__dirname, '..', '..');

/** Why the image tests cannot run here, or undefined when they can: podman is what they need (bash .ci/run installs it). */
export function podmanMissing(): string | undefined {
  if (spawnSync('podman', ['--version'], { encoding: 'utf8' }).status === 0) return undefined;
  return 'podman is not installed (bash .ci/run installs podman, runc and mmdebstrap)';
}

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end without blocking the event loop (a build takes minutes). */
export function run(cmd: string, args: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd ?? REPO, env: opts.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** podman with the project's settings for it (scripts/podman.sh: runc, cgroupfs, a containers.conf without ulimits). */
export function pod(...args: string[]): Promise<Run> {
  return run('bash', ['-c', '. scripts/podman.sh && pod "$@"', 'pod', ...args]);
}

/** Like `pod`, but a non-zero exit is an error naming the command and its output. */
export async function podOk(...args: string[]): Promise<string> {
  const r = await pod(...args);
  if (r.code !== 0) throw new Error(`podman ${args.join(' ')} exited with ${r.code}:\n${r.stderr}\n${r.stdout}`.slice(0, 8000));
  return r.stdout;
}

export interface BuiltImage {
  image: string;
  version: string;
  revision: string;
  source: string;
  /** How long the base images and the build took (the base is cached after the first run). */
  baseSeconds: number;
  buildSeconds: number;
}

/**
 * The relay's image built from the repository's Dockerfile as a user builds it, on the local Node 24 base
 * (scripts/local-base-images.sh: no image registry needed). A proxy CA in NODE_EXTRA_CA_CERTS is passed to
 * `npm ci` as the Dockerfile's `npm_ca` secret.
 */
export async function buildRelayImage(tag: string): Promise<BuiltImage> {
  let began = performance.now();
  const base = await run('bash', ['scripts/local-base-images.sh']);
  if (base.code !== 0) throw new Error(`scripts/local-base-images.sh failed:\n${base.stderr}\n${base.stdout}`);
  const baseImage = base.stdout.trim().split('\n').pop()!;
  const baseSeconds = (performance.now() - began) / 1000;
  const version = (JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string }).version;
  const head = spawnSync('git', ['rev-parse', 'HEAD'], { cwd: REPO, encoding: 'utf8' });
  const revision = head.status === 0 ? head.stdout.trim() : 'unknown';
  const source = 'https://example.org/webhook-relay.git';
  const ca = process.env.NODE_EXTRA_CA_CERTS;
  began = performance.now();
  await podOk(
    'build', '--format', 'docker', '--network', 'host', '--tag', tag,
    '--build-arg', `NODE_IMAGE=${baseImage}`,
    '--build-arg', `RELAY_REVISION=${revision}`, '--build-arg', `RELAY_SOURCE=${source}`,
    ...(ca && fs.existsSync(ca) ? ['--secret', `id=npm_ca,src=${ca}`] : []),
    '.',
  );
  return { image: tag, version, revision, source, baseSeconds, buildSeconds: (performance.now() - began) / 1000 };
}
