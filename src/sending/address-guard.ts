import dns from 'node:dns';
import net from 'node:net';

/**
 * The SSRF rule of RULINGS.md §27: in production, refuse destinations whose
 * resolved address is private, loopback, link-local, unique-local,
 * unspecified or otherwise not globally routable. The check runs on the
 * address the socket actually connects to (see `guardedLookup`), so a
 * hostname that resolves to a public address at create time and to
 * 127.0.0.1 later (DNS rebinding) is still refused.
 */
export const SSRF_ERROR_CODE = 'ERR_RELAY_BLOCKED_ADDRESS';

export class BlockedAddressError extends Error {
  readonly code = SSRF_ERROR_CODE;
  constructor(
    readonly host: string,
    readonly address: string,
  ) {
    super(
      `refused to connect to ${host}${host === address ? '' : ` (${address})`}: private, loopback or link-local ` +
        'addresses are not allowed in production (set RELAY_ALLOW_PRIVATE_NETWORKS=1 to allow them)',
    );
    this.name = 'BlockedAddressError';
  }
}

const blocked = new net.BlockList();
const V4_RANGES: Array<[string, number]> = [
  ['0.0.0.0', 8], // "this network", includes the unspecified address
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT (shared address space)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata endpoints live here)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
];
const V6_RANGES: Array<[string, number]> = [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['100::', 64], // discard-only
  ['64:ff9b:1::', 48], // local-use NAT64
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
];
for (const [net4, prefix] of V4_RANGES) blocked.addSubnet(net4, prefix, 'ipv4');
for (const [net6, prefix] of V6_RANGES) blocked.addSubnet(net6, prefix, 'ipv6');

/** The 16 bytes of a valid IPv6 address (zone id ignored, dotted IPv4 tail allowed). */
function ipv6Bytes(address: string): number[] {
  let text = address.toLowerCase().split('%')[0];
  let v4: number[] | null = null;
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    v4 = dotted[2].split('.').map(Number);
    text = `${dotted[1]}0:0`;
  }
  const groups = (s: string) => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const [head, rest] = text.split('::');
  const h = groups(head);
  const words = rest === undefined ? h : [...h, ...new Array<number>(8 - h.length - groups(rest).length).fill(0), ...groups(rest)];
  const bytes = words.flatMap((w) => [(w >> 8) & 0xff, w & 0xff]);
  if (v4) bytes.splice(12, 4, ...v4);
  return bytes;
}

/** IPv4 embedded in an IPv6 address by a translation scheme, if any. */
function embeddedIpv4(address: string): string | null {
  const b = ipv6Bytes(address);
  const v4 = (at: number) => b.slice(at, at + 4).join('.');
  const zeros = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  if (zeros(0, 10) && b[10] === 0xff && b[11] === 0xff) return v4(12); // ::ffff:a.b.c.d (mapped)
  if (zeros(0, 12)) return v4(12); // ::a.b.c.d (deprecated compatible form)
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zeros(4, 12)) return v4(12); // 64:ff9b::/96 NAT64
  if (b[0] === 0x20 && b[1] === 0x02) return v4(2); // 2002::/16 6to4
  return null;
}

/** True when `address` (an IP literal) must not be connected to in production. Non-IPs are refused too. */
export function isBlockedAddress(address: string): boolean {
  const ip = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const family = net.isIP(ip);
  if (family === 4) return blocked.check(ip, 'ipv4');
  if (family !== 6) return true;
  if (blocked.check(ip, 'ipv6')) return true;
  const v4 = embeddedIpv4(ip);
  return v4 !== null && blocked.check(v4, 'ipv4');
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/**
 * A `lookup` for net/tls.connect that resolves as usual and refuses the
 * connection when any resolved address is blocked (a name with one public and
 * one private address is a rebinding signal, not a reason to pick the public one).
 */
export function guardedLookup(hostname: string, options: dns.LookupOptions, callback: LookupCallback): void {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, options.all ? [] : '', undefined);
    const bad = addresses.find((a) => isBlockedAddress(a.address));
    if (bad) return callback(new BlockedAddressError(hostname, bad.address) as NodeJS.ErrnoException, options.all ? [] : '');
    if (options.all) return callback(null, addresses);
    callback(null, addresses[0].address, addresses[0].family);
  });
}
