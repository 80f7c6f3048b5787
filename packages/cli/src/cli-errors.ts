/**
 * What `relay` prints when a client command cannot go on: one line on stderr,
 * no stack trace, and an exit code scripts can branch on (docs/cli.md).
 */
export const EXIT = {
  failure: 1,
  usage: 2,
  notLoggedIn: 3,
  unreachable: 4,
  noSources: 5,
} as const;

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.failure,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export const notLoggedIn = () => new CliError('not logged in: run `relay login` first', EXIT.notLoggedIn);
export const refreshFailed = () => new CliError('refresh failed (session expired, login again): run `relay login`', EXIT.notLoggedIn);
export const apiUnreachable = (url: string, cause?: string) =>
  new CliError(`API unreachable at ${url}${cause ? ` (${cause})` : ''}: is the service running? (--api-url or RELAY_API_URL to use another)`, EXIT.unreachable);
export const noSources = (detail?: string) =>
  new CliError(
    `no sources found${detail ? ` (${detail})` : ''}: create one with \`POST /v1/endpoints {"name": "...", "slug": "..."}\` or in the dashboard, then run listen again`,
    EXIT.noSources,
  );
