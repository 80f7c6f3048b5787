import type { Command } from 'commander';
import { clientCommands, relayProgram, runRelay } from '../../packages/cli/src/commands';
import { LauncherError } from './launcher-error';

/**
 * `relay` in a checkout: the service's commands (start, api, worker, migrate, …) and the
 * client's (login, logout, whoami, listen, trigger: packages/cli). The service's modules
 * load only when one of its commands runs.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const server = async () => require('./server-commands') as typeof import('./server-commands');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const dashboardBuild = () => require('./build-dashboard') as typeof import('./build-dashboard');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const temporalCommand = () => require('./temporal-command') as typeof import('./temporal-command');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const serviceConfig = () => require('./service-config') as typeof import('./service-config');

const relay = relayProgram('Webhook relay: run the service, or receive its webhooks on your machine', 'the version of this relay')
  // relay's own options (--version, --help) come before a command: `relay temporal --version` is the Temporal CLI's.
  .enablePositionalOptions();
serviceCommands(relay);
clientCommands(relay);
runRelay(relay, { expected: (err) => err instanceof LauncherError });

/** The service's own commands: they need the whole checkout, so the CLI package leaves them out. */
function serviceCommands(relay: Command): void {
  relay
    .command('start')
    .description('everything in one process: API, GraphQL, worker; starts an embedded PostgreSQL and a Temporal dev server under RELAY_DATA_DIR unless DATABASE_URL / TEMPORAL_ADDRESS are set')
    .action(async () => (await server()).start());
  relay.command('api').description('the HTTP API only (needs DATABASE_URL and TEMPORAL_ADDRESS)').action(async () => (await server()).api());
  relay.command('worker').description('the Temporal worker only (needs DATABASE_URL and TEMPORAL_ADDRESS)').action(async () => (await server()).worker());
  relay
    .command('migrate')
    .description('apply database migrations and register Temporal search attributes')
    .option('--status', 'list applied and pending migrations, apply nothing (exit 6 while any is pending)')
    .option('--dry-run', 'print the SQL of the pending migrations, apply nothing')
    .action(async (opts: { status?: boolean; dryRun?: boolean }) => (await server()).runMigrations(opts));
  relay
    .command('config')
    .description('print the settings in use (secrets masked) and where each comes from: environment, .env, default, derived')
    .option('--json', 'as JSON')
    .option('--example', 'print .env.example: every setting at its default, with its meaning')
    .action(async (opts: { json?: boolean; example?: boolean }) => serviceConfig().showConfig(opts));
  relay
    .command('temporal')
    .description("the Temporal CLI the service uses, against its Temporal address and namespace (e.g. relay temporal workflow list --query 'RelayEventId=\"<event id>\"')")
    .argument('[args...]', "the Temporal CLI's arguments")
    .helpOption(false)
    .allowUnknownOption()
    .passThroughOptions()
    .action(async (args: string[]) => temporalCommand().runTemporalCli(args));
  relay.command('emit-schema').description('write the GraphQL SDL to schema/schema.graphql and the OpenAPI document to schema/openapi.json').action(async () => (await server()).emitSchema());
  relay.command('bundle-workflows').description('pre-bundle workflow code for production workers').action(async () => (await server()).bundle());
  relay
    .command('build-dashboard')
    .description('build the web dashboard into dashboard/dist (RELAY_DASHBOARD_DIR)')
    .option('--if-stale', 'only when it is not built yet or its sources changed since')
    .action(async (opts: { ifStale?: boolean }) => dashboardBuild().buildDashboard(opts.ifStale === true));
  relay
    .command('bench')
    .description('run a benchmark: bench/<name>.bench.ts (also npm run bench:<name>; the figures and what each measures: docs/benchmarks.md)')
    .argument('<name>')
    .argument('[args...]')
    .allowUnknownOption()
    .action(async (name: string, args: string[]) => (await server()).bench(name, args));
}
