import { Command, CommanderError, Option } from 'commander';
import { CliError, EXIT } from './cli-errors';
import { versionLine } from './version';

/* Every command's module loads only when it runs: `relay --help` and `--version` load commander alone (docs/cli.md). */
/* eslint-disable @typescript-eslint/no-require-imports */
const loginCommands = () => require('./login.command') as typeof import('./login.command');
const listenCommand = () => require('./listen.command') as typeof import('./listen.command');
const triggerCommand = () => require('./trigger.command') as typeof import('./trigger.command');
const schemaCommand = () => require('./schema.command') as typeof import('./schema.command');
/* eslint-enable @typescript-eslint/no-require-imports */

const collect = (value: string, previous: string[]) => [...previous, value];

/** The `relay` program with no commands yet: its description, version and the way it reports usage errors. */
export function relayProgram(description: string, versionHelp: string): Command {
  const program = new Command('relay')
    .description(description)
    // Not commander's .version(string): the line (its commit may need `git rev-parse`) is made only when asked for.
    .option('-V, --version', versionHelp)
    .showHelpAfterError('(relay --help for the commands)')
    .exitOverride();
  program.on('option:version', () => {
    process.stdout.write(`${versionLine()}\n`);
    process.exit(0);
  });
  return program;
}

/** The developer's commands, talking to a relay API: all the CLI package holds (the checkout's `relay` adds the service's). */
export function clientCommands(relay: Command): void {
  const apiUrl = () => new Option('--api-url <url>', 'the relay API (default: RELAY_API_URL, the one logged in to, or http://localhost:3000)');
  const profile = () => new Option('--profile <name>', 'use this saved login (default: RELAY_PROFILE, else "default")');
  relay
    .command('login')
    .description('log in and keep the session in ~/.config/relay/config.json (0600)')
    .addOption(apiUrl())
    .option('--email <email>', 'instead of the prompt (or RELAY_EMAIL)')
    .option('--password <password>', 'instead of the prompt (or RELAY_PASSWORD)')
    .option('--oauth <provider>', 'sign in with an OAuth provider in the browser (e.g. codehost_a)')
    .option('--no-browser', 'with --oauth: print the URL, do not open a browser')
    .option('--api-key <svc_key>', 'log in with a project API key (CI, containers); or set RELAY_API_KEY and skip login')
    .addOption(profile())
    .action(async (opts) => loginCommands().login(opts));
  relay.command('logout').description('end the session and remove its tokens').addOption(profile()).action(async (opts) => loginCommands().logout(opts));
  relay.command('whoami').description('who is logged in, and where').addOption(apiUrl()).addOption(profile()).action(async (opts) => loginCommands().whoami(opts));
  relay
    .command('listen')
    .description('forward live events of the project to a local server (keys: ↑/↓ select, d detail, o open, r replay, p pause, c change, h help, q quit)')
    .argument('[target]', 'local port (1-65535) or URL (http://localhost:4000/hooks)')
    .argument('[source_slug]', 'one source (default: every active source of the project)')
    .option('--path <path>', 'with a port: POST to this path on localhost (default /)')
    .option('--route <type_or_source=path>', 'events of this type or source go to this path (repeatable)', collect, [])
    .option('--header <name:value>', 'add this header to every forward (repeatable)', collect, [])
    .option('--event-type <types>', 'only events of these types, comma-separated (repeatable); filtered on the server', collect, [])
    .option('--filter <condition>', "only events matching '<field> <op> <value>' (eq neq contains not_contains exists not_exists regex; repeatable, all must match)", collect, [])
    .option('--allow-external', 'allow a URL target on another machine')
    .option('--insecure', 'accept a self-signed certificate from an https target')
    .option('--print-secret', "print the session's signing secret and exit")
    .addOption(
      new Option('--signature-scheme <scheme>', "how forwards are signed, kept for the session until changed: service (X-Service-Signature) or standard (Standard Webhooks' webhook-signature)").choices([
        'service',
        'standard',
      ]),
    )
    .option('--forward-missed', 'forward the events that arrived while no CLI was listening without asking, at start and on reconnect (else: press f)')
    .addOption(profile())
    .option('--project <project_id>', 'the project (default: your default project)')
    .addOption(apiUrl())
    .option('--transform <name>', 'apply this named transform to forwarded events')
    .option('--template <name>', 'render this named template for forwarded events')
    .option('--delay <ms>', 'wait this long before each forward (0-10000)')
    .addOption(new Option('--output <format>', 'json: one JSON object per line').choices(['json']))
    .option('--exit-after-disconnect <seconds>', 'exit (code 4) after this long without a connection to the API (default: reconnect forever)')
    .action(async (target: string | undefined, slug: string | undefined, opts) => listenCommand().listen(target, slug, opts));
  relay
    .command('trigger')
    .description("send an event through a source's real ingress, signed with its secret (filters, transforms and listen apply)")
    .argument('[source_slug]', 'the source (endpoint slug); with --event: default that event\'s source')
    .option('--payload <file>', 'the JSON body from this file, or - for stdin (default: a small sample)')
    .option('--type <event_type>', 'sent as X-Event-Type')
    .option('--header <name:value>', 'add this request header (repeatable)', collect, [])
    .option('--event <event_id>', "send this stored event's body and headers again, as a new event")
    .option('--wait', 'wait for the deliveries and print their outcomes (exit 1 if one failed)')
    .option('--timeout <seconds>', 'with --wait: at most this long (default 30)')
    .option('--project <project_id>', 'the project (default: your default project)')
    .addOption(apiUrl())
    .addOption(profile())
    .action(async (slug: string | undefined, opts) => triggerCommand().trigger(slug, opts));
  relay
    .command('schema')
    .description("print the JSON Schema the relay inferred from a source's events, or TypeScript types to compile a receiver against")
    .argument('<source_slug>', 'the source (endpoint slug)')
    .argument('[event_type]', 'one event type (default: all of them)')
    .option('--typescript', 'print TypeScript: a type per event type, a map by event type and their union')
    .option('--project <project_id>', 'the project (default: your default project)')
    .addOption(apiUrl())
    .addOption(profile())
    .action(async (slug: string, eventType: string | undefined, opts) => schemaCommand().schema(slug, eventType, opts));
}

export interface RunOptions {
  /** Errors of the service's commands that are expected and explained in their message: one line, no stack trace. */
  expected?: (err: unknown) => boolean;
}

/** One line on stderr and an exit code; a stack trace only for unexpected errors of the service's commands. */
function exitWith(err: unknown, command: string | undefined, options: RunOptions): never {
  if (err instanceof CommanderError) process.exit(err.exitCode === 0 ? 0 : EXIT.usage);
  if (err instanceof CliError) {
    process.stderr.write(`relay: ${err.message}\n`);
    process.exit(err.exitCode);
  }
  // By name: src/config loads zod, which `relay --help` should not wait for.
  if (err instanceof Error && err.name === 'ConfigError') {
    process.stderr.write(`configuration error: ${(err as Error).message}\n`);
    process.exit(78);
  }
  if (options.expected?.(err) || (isClientCommand(command) && !process.env.RELAY_DEBUG)) {
    process.stderr.write(`relay: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
  process.stderr.write(`relay: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
}

/** Whether `name` is one of the commands clientCommands() registers (whatever they are). */
function isClientCommand(name: string | undefined): boolean {
  const clients = new Command();
  clientCommands(clients);
  return clients.commands.some((c) => c.name() === name);
}

/**
 * Exits once stdout and stderr have handed everything written to them to the OS. On a pipe (`relay schema … > file`
 * is a file, `relay schema … | less` a pipe) Node 24 writes asynchronously, and exiting at once cut what the pipe's
 * reader had not taken yet: a large `relay schema --typescript` ended mid-line.
 */
function exitWhenWritten(code: number): void {
  let pending = 2;
  const written = () => {
    if (--pending === 0) process.exit(code);
  };
  process.stdout.write('', written);
  process.stderr.write('', written);
}

/** Parses the command line and runs the command; exits with its code (a client command also when it is done). */
export function runRelay(program: Command, options: RunOptions = {}): void {
  const argv = process.argv.slice(2);
  if (argv.length === 0) argv.push('--help');
  program
    .parseAsync(argv, { from: 'user' })
    .then(() => {
      // Client commands leave nothing running that should keep the process (keep-alive sockets, stdin).
      if (isClientCommand(argv[0])) exitWhenWritten(0);
    })
    .catch((err) => exitWith(err, argv[0], options));
}
