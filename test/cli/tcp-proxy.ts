import net from 'node:net';
import type { AddressInfo } from 'node:net';

/** A TCP proxy in front of the API, so a test can cut the CLI's connections (a network drop) while the API keeps running. */
export async function startTcpProxy(targetPort: number): Promise<{ url: string; dropAll(): void; block(blocked: boolean): void; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  /** While blocked, new connections are cut at once (the network is down). */
  let blocked = false;
  const server = net.createServer((inbound) => {
    if (blocked) return void inbound.destroy();
    const outbound = net.connect(targetPort, '127.0.0.1');
    for (const s of [inbound, outbound]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    inbound.pipe(outbound).pipe(inbound);
    inbound.on('close', () => outbound.destroy());
    outbound.on('close', () => inbound.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    block: (value) => {
      blocked = value;
    },
    dropAll: () => {
      for (const s of sockets) s.destroy();
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
