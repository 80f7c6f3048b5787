import { guardedLookup, isBlockedAddress, SSRF_ERROR_CODE } from './address-guard';

describe('isBlockedAddress', () => {
  it.each([
    // IPv4
    ['0.0.0.0', true],
    ['0.1.2.3', true],
    ['10.0.0.1', true],
    ['10.255.255.255', true],
    ['100.64.0.1', true],
    ['100.128.0.1', false],
    ['127.0.0.1', true],
    ['127.8.9.10', true],
    ['169.254.169.254', true],
    ['172.15.255.255', false],
    ['172.16.0.1', true],
    ['172.31.255.255', true],
    ['172.32.0.0', false],
    ['192.168.1.1', true],
    ['192.0.2.5', true],
    ['198.18.0.1', true],
    ['224.0.0.1', true],
    ['255.255.255.255', true],
    ['8.8.8.8', false],
    ['1.1.1.1', false],
    ['93.184.216.34', false],
    // IPv6
    ['::', true],
    ['::1', true],
    ['[::1]', true],
    ['fe80::1', true],
    ['fe80::1%eth0', true],
    ['febf::1', true],
    ['fc00::1', true],
    ['fd12:3456:789a::1', true],
    ['ff02::1', true],
    ['2001:db8::1', true],
    ['2606:4700:4700::1111', false],
    ['2001:4860:4860::8888', false],
    // IPv4 inside IPv6
    ['::ffff:127.0.0.1', true],
    ['::ffff:7f00:1', true],
    ['::ffff:10.1.2.3', true],
    ['::ffff:169.254.169.254', true],
    ['::ffff:8.8.8.8', false],
    ['::127.0.0.1', true],
    ['64:ff9b::10.0.0.1', true],
    ['64:ff9b::808:808', false],
    ['2002:7f00:1::', true],
    ['2002:808:808::1', false],
    // not an IP at all
    ['localhost', true],
    ['', true],
  ])('%s → blocked %s', (address, expected) => {
    expect(isBlockedAddress(address)).toBe(expected);
  });
});

describe('guardedLookup', () => {
  const lookup = (host: string, all: boolean) =>
    new Promise<{ err: NodeJS.ErrnoException | null; address: unknown }>((resolve) =>
      guardedLookup(host, { all }, (err, address) => resolve({ err, address })),
    );

  it.each([true, false])('refuses a name that resolves to loopback (all=%s)', async (all) => {
    const { err } = await lookup('localhost', all);
    expect(err?.code).toBe(SSRF_ERROR_CODE);
    expect(err?.message).toMatch(/refused to connect to localhost/);
  });

  it('passes through resolver errors', async () => {
    const { err } = await lookup('does-not-exist.invalid', false);
    expect(err?.code).not.toBe(SSRF_ERROR_CODE);
    expect(err).not.toBeNull();
  });
});
