import pino from 'pino';
import pretty, { type PrettyOptions } from 'pino-pretty';

export type Logger = pino.Logger;

/**
 * Secrets never reach a log line: request/response bodies are not logged, and
 * these keys are redacted wherever they appear in a logged object.
 */
const REDACT = [
  '*.signing_secret', '*.signingSecret', '*.webhook_url', '*.webhookUrl', '*.bot_token', '*.botToken',
  '*.password', '*.access_token', '*.refresh_token', '*.authorization', 'req.headers.authorization',
];

/** Fields of a PostgreSQL error that quote row values ("Key (email)=(…)", "Failing row contains (…)") or other statements. */
const VALUE_FIELDS = ['detail', 'where', 'internalQuery', 'params', 'parameters', 'bindings'];

const QUOTED_LITERAL = /[EeXxBbUu]?'(?:[^']|'')*'/g;
const NUMERIC_LITERAL = /(?<![\w".$])-?\d+(?:\.\d+)?(?![\w"])/g;

/**
 * MikroORM inlines parameters into the statement it sends, and the driver
 * puts that statement in the error message ("<statement> - <reason>"): a
 * failed INSERT into users would log the password hash. Literals in the
 * statement become `?`; the reason and the SQLSTATE code stay.
 */
export function withoutBoundValues(message: string): string {
  const cut = message.lastIndexOf(' - ');
  const statement = cut >= 0 ? message.slice(0, cut) : message;
  const reason = cut >= 0 ? message.slice(cut) : '';
  return statement.replace(QUOTED_LITERAL, '?').replace(NUMERIC_LITERAL, '?') + reason.replace(QUOTED_LITERAL, '?');
}

/** A PostgreSQL error (pg's, or MikroORM's wrapper of it): a SQLSTATE code and a severity. */
function isStatementError(err: Record<string, unknown>): boolean {
  return typeof err.code === 'string' && /^[0-9A-Z]{5}$/.test(err.code) && typeof err.severity === 'string';
}

function serializeError(err: unknown): unknown {
  const serialized = pino.stdSerializers.err(err as Error) as unknown as Record<string, unknown>;
  if (!serialized || typeof serialized !== 'object' || !isStatementError(serialized)) return serialized;
  const safe: Record<string, unknown> = { ...serialized };
  for (const field of VALUE_FIELDS) delete safe[field];
  if (typeof safe.message === 'string') {
    const message = safe.message;
    safe.message = withoutBoundValues(message);
    // The stack repeats the message.
    if (typeof safe.stack === 'string') safe.stack = safe.stack.replace(message, safe.message as string);
  }
  return safe;
}

/**
 * How a person at a terminal reads the logs (pino-pretty): one line per entry, `12:04:31.207 INFO: message`
 * then the other fields as JSON; an error's fields and stack follow on their own lines. pino's own
 * fields (pid, hostname, name) are left out.
 */
export function prettyLogOptions(colour: boolean): PrettyOptions {
  return {
    colorize: colour,
    singleLine: true,
    ignore: 'pid,hostname,name',
    translateTime: 'SYS:HH:MM:ss.l',
    // The time as is, without pino-pretty's brackets.
    customPrettifiers: { time: (time) => String(time) },
  };
}

/**
 * Readable lines when stdout is a terminal, JSON lines otherwise (a file, a pipe, a log collector);
 * LOG_FORMAT=json or LOG_FORMAT=pretty chooses either way. Colour unless NO_COLOR is set.
 */
function defaultDestination(env: NodeJS.ProcessEnv = process.env): pino.DestinationStream | undefined {
  const wantsPretty = env.LOG_FORMAT ? env.LOG_FORMAT === 'pretty' : process.stdout.isTTY === true;
  if (!wantsPretty) return undefined;
  // Written synchronously, like pino's own stdout: nothing is lost when the process exits.
  return pretty({ ...prettyLogOptions(process.stdout.isTTY === true && !env.NO_COLOR), destination: 1, sync: true });
}

export function createLogger(level: string = process.env.LOG_LEVEL ?? 'info', name = 'relay', destination = defaultDestination()): Logger {
  return pino({ name, level, redact: { paths: REDACT, censor: '[redacted]' }, serializers: { err: serializeError } }, destination);
}
