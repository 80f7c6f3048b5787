/** A launcher problem the user fixes by hand: printed as its message alone, never with a stack trace. */
export class LauncherError extends Error {
  override name = 'LauncherError';
}
