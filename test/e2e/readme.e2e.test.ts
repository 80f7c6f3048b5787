import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../support/free-port';
import { type Launched, interrupt, launcherEnv, waitReady } from '../support/launcher-process';

/**
 * Plays README.md's "Your first webhook" section as written, read from README.md at run time (no
 * copy of its commands lives here), against a service started the way the README says (`npm start`
 * from its first code block) on a fresh data directory. The convention, also written in an HTML
 * comment at the top of that section:
 *
 * - the section runs from its `## Your first webhook` heading to the next `## ` heading;
 * - its ```sh blocks run in one bash (`set -euo pipefail`), in order, so their variables carry over;
 * - a block whose first line starts with `# In another terminal` (the receiver) is started first, in
 *   the background, as a second terminal would run it;
 * - the ports 3000 (the API) and 4000 (the receiver) are replaced by free ports, so the test runs
 *   beside others; nothing else is changed.
 *
 * The webhook counts as delivered when the README's receiver prints the event id the section's
 * `$EVENT` holds, and the API records its attempt as `success` (read with the section's `$B` and
 * `$AUTH`). A README whose commands stop working fails here.
 */

const REPO = path.resolve(__dirname, '..', '..');
const SECTION = '## Your first webhook';
const BACKGROUND = '# In another terminal';

interface Played {
  output: string;
  code: number | null;
}

/** The README's fenced code blocks of the given languages, in order, between `heading` and the next `## `. */
function codeBlocks(readme: string, heading: string | null, languages: string[]): string[] {
  let text = readme;
  if (heading) {
    const start = readme.indexOf(`\n${heading}\n`);
    if (start < 0) throw new Error(`README.md has no "${heading}" section`);
    const end = readme.indexOf('\n## ', start + heading.length + 2);
    text = readme.slice(start, end < 0 ? undefined : end);
  }
  return [...text.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].filter((m) => languages.includes(m[1])).map((m) => m[2]);
}

function run(command: string, args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number }): Promise<Played> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ output, code });
    });
  });
}

async function until<T>(what: string, timeoutMs: number, probe: () => T | undefined | Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const listening = (port: number) =>
  new Promise<true | undefined>((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.end();
      resolve(true);
    });
    socket.on('error', () => resolve(undefined));
  });

describe("README's first webhook", () => {
  const readme = fs.readFileSync(path.join(REPO, 'README.md'), 'utf8');
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-readme-'));
  const background: ChildProcess[] = [];
  let service: Launched | undefined;

  afterAll(async () => {
    for (const child of background) child.kill('SIGKILL');
    if (service) await interrupt(service);
    fs.rmSync(work, { recursive: true, force: true });
  }, 60_000);

  it('delivers the webhook the section sends, with its own commands', async () => {
    // The service, as the README's first code block starts it, on a fresh data directory and free ports.
    const startLine = codeBlocks(readme, null, ['sh'])[0]?.split('\n').find((line) => /^npm start\b/.test(line));
    expect(startLine).toBeDefined();
    const env = await launcherEnv(path.join(work, 'data'));
    const receiverPort = await freePort();
    // A stub dashboard: `npm start` builds the real one only when it is missing, and this test needs the API alone.
    const dashboard = path.join(work, 'dashboard');
    fs.mkdirSync(dashboard);
    fs.writeFileSync(path.join(dashboard, 'index.html'), '<!doctype html><title>webhook relay</title>\n');
    const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(DATABASE_URL|TEMPORAL_ADDRESS|RELAY_|PORT$|npm_)/.test(name)));
    const child = spawn('bash', ['-c', startLine!.replace(/#.*$/, '')], {
      cwd: REPO,
      env: { ...inherited, NODE_ENV: 'development', LOG_LEVEL: 'warn', RELAY_DASHBOARD_DIR: dashboard, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true, // its own process group, as a terminal's job: Ctrl+C (interrupt) reaches npm and the service
    });
    let serviceOutput = '';
    child.stdout?.on('data', (d: Buffer) => (serviceOutput += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (serviceOutput += d.toString()));
    service = { child, output: () => serviceOutput, exited: new Promise((resolve) => child.once('exit', resolve)) };
    await waitReady(env, service);

    // The section's own commands, with the two ports replaced.
    const blocks = codeBlocks(readme, SECTION, ['sh']).map((block) => block.replace(/\b3000\b/g, env.PORT).replace(/\b4000\b/g, String(receiverPort)));
    const receivers = blocks.filter((block) => block.startsWith(BACKGROUND));
    const commands = blocks.filter((block) => !block.startsWith(BACKGROUND));
    expect(receivers).toHaveLength(1);
    expect(commands.length).toBeGreaterThan(0);
    let receiverOutput = '';
    for (const block of receivers) {
      const receiver = spawn('bash', ['-c', block], { cwd: work, stdio: ['ignore', 'pipe', 'pipe'] });
      receiver.stdout.on('data', (d: Buffer) => (receiverOutput += d.toString()));
      receiver.stderr.on('data', (d: Buffer) => (receiverOutput += d.toString()));
      background.push(receiver);
    }
    await until(`the receiver on port ${receiverPort}`, 30_000, () => listening(receiverPort));

    // After the section: what it left in $EVENT, and its attempt's status once recorded (bounded).
    const check = [
      'echo "README_TEST_EVENT=$EVENT"',
      'for i in $(seq 120); do',
      '  status=$(curl -s "$B/v1/attempts?event_id=$EVENT" -H "$AUTH" | jq -r \'.data[0].status // empty\')',
      '  if [ -n "$status" ] && [ "$status" != queued ]; then break; fi',
      '  sleep 1',
      'done',
      'echo "README_TEST_STATUS=$status"',
    ].join('\n');
    const script = ['set -euo pipefail', ...commands, check].join('\n');
    const played = await run('bash', ['-c', script], { cwd: work, env: process.env, timeoutMs: 240_000 });
    const context = `the section's output:\n${played.output}\nthe receiver's:\n${receiverOutput}\nthe service's (last 40 lines):\n${serviceOutput.split('\n').slice(-40).join('\n')}`;
    if (played.code !== 0) throw new Error(`the README's commands failed (exit ${played.code}); ${context}`);
    const event = /^README_TEST_EVENT=([0-9a-f-]{36})$/m.exec(played.output)?.[1];
    if (!event) throw new Error(`the section left no event id in $EVENT; ${context}`);

    await until(`the receiver to print event ${event}`, 60_000, () => (receiverOutput.includes(event) ? true : undefined)).catch((err: Error) => {
      throw new Error(`${err.message}; ${context}`);
    });
    expect(played.output).toContain('README_TEST_STATUS=success');
  }, 600_000);
});
