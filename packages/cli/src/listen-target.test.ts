import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { CliError, EXIT } from './cli-errors';
import { isListening, isLoopbackHost, parseHeader, parseRoute, parseTarget, routePath } from './listen-target';

const usageError = (fn: () => unknown, text: RegExp) => {
  expect(fn).toThrow(CliError);
  try {
    fn();
  } catch (err) {
    expect((err as CliError).exitCode).toBe(EXIT.usage);
    expect((err as CliError).message).toMatch(text);
  }
};

describe('listen targets', () => {
  it('takes a port (with --path) or a loopback URL', () => {
    expect(parseTarget('4000')).toEqual({ origin: 'http://localhost:4000', path: '/', host: 'localhost', port: 4000 });
    expect(parseTarget('4000', { path: 'hooks' })).toMatchObject({ path: '/hooks' });
    expect(parseTarget('http://127.0.0.1:3000/hooks?x=1')).toEqual({ origin: 'http://127.0.0.1:3000', path: '/hooks?x=1', host: '127.0.0.1', port: 3000 });
    expect(parseTarget('https://localhost/hooks')).toMatchObject({ origin: 'https://localhost', port: 443 });
    expect(parseTarget('http://[::1]:8080/')).toMatchObject({ host: '::1', port: 8080 });
    usageError(() => parseTarget('70000'), /invalid port "70000"/);
    usageError(() => parseTarget('abc'), /invalid port "abc"/);
    usageError(() => parseTarget('ftp://localhost/x'), /only http/);
    usageError(() => parseTarget('http://localhost:3000/x', { path: '/y' }), /--path goes with a port/);
    usageError(() => parseTarget('http://u:p@localhost:3000/'), /no credentials/);
  });

  it('refuses another machine without --allow-external', () => {
    usageError(() => parseTarget('http://host.docker.internal:3000/hooks'), /"host.docker.internal" is not this machine: add --allow-external/);
    usageError(() => parseTarget('http://10.0.0.5/'), /--allow-external/);
    expect(parseTarget('http://host.docker.internal:3000/hooks', { allowExternal: true })).toMatchObject({ origin: 'http://host.docker.internal:3000', path: '/hooks' });
    expect(['localhost', 'api.localhost', '127.0.0.1', '127.1.2.3', '[::1]'].every(isLoopbackHost)).toBe(true);
    expect(['example.com', '10.0.0.1', '128.0.0.1', 'localhost.example.com'].some(isLoopbackHost)).toBe(false);
  });

  it('parses routes and headers, and picks a route by event type first, then by source', () => {
    const routes = ['push=/github', 'shop=/shop', 'order.paid=orders/paid'].map(parseRoute);
    expect(routes[2]).toEqual({ match: 'order.paid', path: '/orders/paid' });
    expect(routePath(routes, { eventType: 'push', sourceSlug: 'shop' }, '/')).toBe('/github');
    expect(routePath(routes, { eventType: 'other', sourceSlug: 'shop' }, '/')).toBe('/shop');
    expect(routePath(routes, { eventType: 'other', sourceSlug: 'gh' }, '/base')).toBe('/base');
    for (const bad of ['push', '=/x', 'push=', 'push=http://x/']) usageError(() => parseRoute(bad), /invalid (route|path)/);
    expect(parseHeader('Authorization: Bearer dev')).toEqual(['authorization', 'Bearer dev']);
    expect(parseHeader('X-Env=local')).toEqual(['x-env', 'local']);
    for (const bad of ['nocolon', ': v', 'bad name: v']) usageError(() => parseHeader(bad), /invalid header/);
  });

  it('says whether something listens at the target', async () => {
    const server = http.createServer((_req, res) => res.end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    expect(await isListening({ host: '127.0.0.1', port })).toBe(true);
    await new Promise((resolve) => server.close(resolve));
    expect(await isListening({ host: '127.0.0.1', port })).toBe(false);
  });
});
