import { spawn } from 'node:child_process';

/** Opens `url` in the browser (open on macOS, explorer on Windows, else xdg-open), if there is one: the printed URL is enough otherwise. */
export function tryOpenBrowser(url: string): void {
  const opener = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  try {
    const child = spawn(opener, [url], { stdio: 'ignore', detached: true });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // No browser here: the printed URL is enough.
  }
}
