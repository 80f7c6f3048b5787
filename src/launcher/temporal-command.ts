import { spawn } from 'node:child_process';
import path from 'node:path';
import { LauncherError } from './launcher-error';
import { temporalCliSettings } from './service-config';
import { existingTemporalCli } from './temporal-cli';

/**
 * `relay temporal …`: the Temporal CLI the service uses (TEMPORAL_CLI_PATH, `temporal` on PATH, or the one
 * `relay start` installed under RELAY_DATA_DIR/tools), run with the rest of the arguments against the
 * service's Temporal: TEMPORAL_ADDRESS, else the dev server `relay start` runs, and TEMPORAL_NAMESPACE.
 * The TLS and API key settings have the CLI's own names (TEMPORAL_TLS_*, TEMPORAL_API_KEY) and reach it
 * as they are; an argument given on the command line wins over all of them. Exits with the CLI's code.
 */
export async function runTemporalCli(args: string[]): Promise<void> {
  const settings = temporalCliSettings();
  const toolsDir = path.resolve(settings.RELAY_DATA_DIR, 'tools');
  const cli = await existingTemporalCli(toolsDir, settings.TEMPORAL_CLI_PATH);
  if (!cli) {
    throw new LauncherError(`no Temporal CLI here (TEMPORAL_CLI_PATH, PATH, ${toolsDir}): npm start installs it on its first start; or set TEMPORAL_CLI_PATH to a temporal binary`);
  }
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TEMPORAL_ADDRESS: settings.TEMPORAL_ADDRESS || `127.0.0.1:${settings.RELAY_TEMPORAL_PORT}`,
    TEMPORAL_NAMESPACE: settings.TEMPORAL_NAMESPACE,
  };
  // The relay also reads yes/no and 1/0; the CLI wants true or false.
  if (settings.TEMPORAL_TLS === undefined) delete env.TEMPORAL_TLS;
  else env.TEMPORAL_TLS = String(settings.TEMPORAL_TLS);
  const child = spawn(cli, args, { stdio: 'inherit', env });
  // Ctrl+C reaches the CLI too (same process group): it decides how to stop, and its exit code is ours.
  const ignore = () => undefined;
  process.on('SIGINT', ignore);
  process.on('SIGTERM', () => child.kill('SIGTERM'));
  const code = await new Promise<number>((resolve, reject) => {
    child.once('error', (err) => reject(new LauncherError(`could not run ${cli}: ${err.message}`)));
    child.once('exit', (exitCode, signal) => resolve(exitCode ?? 128 + (signal === 'SIGINT' ? 2 : 15)));
  });
  process.exit(code);
}
