import net from 'node:net';
import { LauncherError } from './launcher-error';

/** A port `relay start` needs, and the setting that chooses it. */
export interface NeededPort {
  setting: string;
  port: number;
  host: string;
  what: string;
}

export class PortInUseError extends LauncherError {
  override name = 'PortInUseError';

  constructor(readonly needed: NeededPort) {
    super(
      `port ${needed.port} (${needed.what}, on ${needed.host}) is already in use. It is chosen by ${needed.setting}: ` +
        `set ${needed.setting} to a free port, or stop what holds it — another relay may be running (check with \`ss -ltnp 'sport = :${needed.port}'\`).`,
    );
  }
}

function canBind(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(false));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve(true)));
  });
}

/**
 * Checks every port before anything starts, so a taken one is reported by
 * name rather than surfacing later as an obscure failure of a child process.
 * Port 0 (any free port) is never taken.
 */
export async function assertPortsFree(ports: NeededPort[]): Promise<void> {
  for (const needed of ports) {
    if (needed.port !== 0 && !(await canBind(needed.port, needed.host))) throw new PortInUseError(needed);
  }
}
