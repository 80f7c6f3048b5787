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

/**
 * Every entry of IANA's IPv4 and IPv6 special-purpose address registries (iana-ipv4-special-registry,
 * iana-ipv6-special-registry), with the first and last address of each range: all are refused,
 * including those the registry marks globally reachable (anycast relays, AS112, AMT, ORCHIDv2, DETs).
 */
describe('isBlockedAddress against the IANA special-purpose registries', () => {
  const IPV4_REGISTRY: Array<[string, string, string]> = [
    ['0.0.0.0/8', '0.0.0.0', '0.255.255.255'], // "This network"
    ['0.0.0.0/32', '0.0.0.0', '0.0.0.0'], // "This host on this network"
    ['10.0.0.0/8', '10.0.0.0', '10.255.255.255'], // Private-Use
    ['100.64.0.0/10', '100.64.0.0', '100.127.255.255'], // Shared Address Space
    ['127.0.0.0/8', '127.0.0.0', '127.255.255.255'], // Loopback
    ['169.254.0.0/16', '169.254.0.0', '169.254.255.255'], // Link Local
    ['172.16.0.0/12', '172.16.0.0', '172.31.255.255'], // Private-Use
    ['192.0.0.0/24', '192.0.0.0', '192.0.0.255'], // IETF Protocol Assignments
    ['192.0.0.0/29', '192.0.0.0', '192.0.0.7'], // IPv4 Service Continuity Prefix
    ['192.0.0.8/32', '192.0.0.8', '192.0.0.8'], // IPv4 dummy address
    ['192.0.0.9/32', '192.0.0.9', '192.0.0.9'], // Port Control Protocol Anycast
    ['192.0.0.10/32', '192.0.0.10', '192.0.0.10'], // Traversal Using Relays around NAT Anycast
    ['192.0.0.170/32', '192.0.0.170', '192.0.0.170'], // NAT64/DNS64 Discovery
    ['192.0.0.171/32', '192.0.0.171', '192.0.0.171'], // NAT64/DNS64 Discovery
    ['192.0.2.0/24', '192.0.2.0', '192.0.2.255'], // Documentation (TEST-NET-1)
    ['192.31.196.0/24', '192.31.196.0', '192.31.196.255'], // AS112-v4
    ['192.52.193.0/24', '192.52.193.0', '192.52.193.255'], // AMT
    ['192.88.99.0/24', '192.88.99.0', '192.88.99.255'], // Deprecated (6to4 Relay Anycast)
    ['192.88.99.2/32', '192.88.99.2', '192.88.99.2'], // 6a44-relay anycast address
    ['192.168.0.0/16', '192.168.0.0', '192.168.255.255'], // Private-Use
    ['192.175.48.0/24', '192.175.48.0', '192.175.48.255'], // Direct Delegation AS112 Service
    ['198.18.0.0/15', '198.18.0.0', '198.19.255.255'], // Benchmarking
    ['198.51.100.0/24', '198.51.100.0', '198.51.100.255'], // Documentation (TEST-NET-2)
    ['203.0.113.0/24', '203.0.113.0', '203.0.113.255'], // Documentation (TEST-NET-3)
    ['240.0.0.0/4', '240.0.0.0', '255.255.255.254'], // Reserved
    ['255.255.255.255/32', '255.255.255.255', '255.255.255.255'], // Limited Broadcast
    ['224.0.0.0/4 (multicast, its own registry)', '224.0.0.0', '239.255.255.255'],
  ];
  const IPV6_REGISTRY: Array<[string, string, string]> = [
    ['::1/128', '::1', '::1'], // Loopback Address
    ['::/128', '::', '::'], // Unspecified Address
    ['64:ff9b:1::/48', '64:ff9b:1::', '64:ff9b:1:ffff:ffff:ffff:ffff:ffff'], // IPv4-IPv6 Translat. (local use)
    ['100::/64', '100::', '100::ffff:ffff:ffff:ffff'], // Discard-Only Address Block
    ['100:0:0:1::/64', '100:0:0:1::', '100:0:0:1:ffff:ffff:ffff:ffff'], // Dummy IPv6 Prefix
    ['2001::/23', '2001::', '2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff'], // IETF Protocol Assignments
    ['2001::/32', '2001::', '2001:0:ffff:ffff:ffff:ffff:ffff:ffff'], // TEREDO
    ['2001:1::1/128', '2001:1::1', '2001:1::1'], // Port Control Protocol Anycast
    ['2001:1::2/128', '2001:1::2', '2001:1::2'], // Traversal Using Relays around NAT Anycast
    ['2001:1::3/128', '2001:1::3', '2001:1::3'], // DNS-SD Service Registration Protocol Anycast
    ['2001:2::/48', '2001:2::', '2001:2:0:ffff:ffff:ffff:ffff:ffff'], // Benchmarking
    ['2001:3::/32', '2001:3::', '2001:3:ffff:ffff:ffff:ffff:ffff:ffff'], // AMT
    ['2001:4:112::/48', '2001:4:112::', '2001:4:112:ffff:ffff:ffff:ffff:ffff'], // AS112-v6
    ['2001:10::/28', '2001:10::', '2001:1f:ffff:ffff:ffff:ffff:ffff:ffff'], // Deprecated (previously ORCHID)
    ['2001:20::/28', '2001:20::', '2001:2f:ffff:ffff:ffff:ffff:ffff:ffff'], // ORCHIDv2
    ['2001:30::/28', '2001:30::', '2001:3f:ffff:ffff:ffff:ffff:ffff:ffff'], // Drone Remote ID Protocol Entity Tags
    ['2001:db8::/32', '2001:db8::', '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff'], // Documentation
    ['2620:4f:8000::/48', '2620:4f:8000::', '2620:4f:8000:ffff:ffff:ffff:ffff:ffff'], // Direct Delegation AS112 Service
    ['3fff::/20', '3fff::', '3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff'], // Documentation
    ['5f00::/16', '5f00::', '5f00:ffff:ffff:ffff:ffff:ffff:ffff:ffff'], // Segment Routing (SRv6) SIDs
    ['fc00::/7', 'fc00::', 'fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'], // Unique-Local
    ['fe80::/10', 'fe80::', 'febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff'], // Link-Local Unicast
    ['fec0::/10 (deprecated site-local)', 'fec0::', 'feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
    ['ff00::/8 (multicast)', 'ff00::', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
    ['outside 2000::/3 (unassigned)', '4000::', '4000::1'],
  ];

  it.each([...IPV4_REGISTRY, ...IPV6_REGISTRY])('%s: %s and %s are refused', (_range, first, last) => {
    expect(isBlockedAddress(first)).toBe(true);
    expect(isBlockedAddress(last)).toBe(true);
  });

  it.each(['8.8.8.8', '1.0.0.1', '100.63.255.255', '100.128.0.0', '192.0.1.255', '192.88.98.255', '198.17.255.255', '223.255.255.255', '2606:4700:4700::1111', '2001:200::1', '2a00:1450:4001::200e'])(
    '%s (global unicast next to the ranges) is allowed',
    (address) => expect(isBlockedAddress(address)).toBe(false),
  );

  /** Each IPv6 form that carries an IPv4 address, with a private and a public one. */
  it.each([
    ['IPv4-mapped', '::ffff:10.0.0.1', '::ffff:8.8.8.8'],
    ['IPv4-mapped, hex', '::ffff:a9fe:a9fe', '::ffff:808:808'],
    ['IPv4-translated', '::ffff:0:192.168.0.1', '::ffff:0:8.8.8.8'],
    ['NAT64 well-known prefix', '64:ff9b::169.254.169.254', '64:ff9b::8.8.8.8'],
    ['NAT64 well-known prefix, hex', '64:ff9b::7f00:1', '64:ff9b::101:101'],
    ['6to4', '2002:c0a8:101::1', '2002:101:101::1'],
    ['IPv4-compatible (deprecated), dotted', '::127.0.0.1', '::8.8.8.8'],
  ])('%s: the embedded private address is refused, the public one allowed', (_form, privateForm, publicForm) => {
    expect(isBlockedAddress(privateForm)).toBe(true);
    expect(isBlockedAddress(publicForm)).toBe(false);
  });

  it.each(['64:ff9b:1::8.8.8.8', '::808:808', '::ffff:0:0'])('%s: a form that cannot reach a public receiver is refused', (address) => {
    expect(isBlockedAddress(address)).toBe(true);
  });
});
