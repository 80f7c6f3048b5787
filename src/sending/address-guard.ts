import dns from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * The SSRF rule (docs/security.md): in production, refuse destinations whose
 * resolved address is private, loopback, link-local, unique-local,
 * unspecified or otherwise not ordinary global unicast. The check runs on the
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

/** The IPv6 global unicast allocation: everything outside it is reserved, special or unassigned. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');
/** Local-use NAT64 (RFC 8215): translated inside one network, so whatever it embeds is refused. */
const LOCAL_USE_NAT64 = ipaddr.parseCIDR('64:ff9b:1::/48');

/** The IPv4 address an IPv6 address carries by a translation scheme (mapped, translated, NAT64, 6to4), if any. */
function embeddedIpv4(address: ipaddr.IPv6, range: string): ipaddr.IPv4 | null {
  const bytes = address.toByteArray();
  switch (range) {
    case 'ipv4Mapped': // ::ffff:a.b.c.d
    case 'rfc6145': // ::ffff:0:a.b.c.d
      return new ipaddr.IPv4(bytes.slice(12));
    case 'rfc6052': // 64:ff9b::a.b.c.d (well-known NAT64 prefix)
      return address.match(LOCAL_USE_NAT64) ? null : new ipaddr.IPv4(bytes.slice(12));
    case '6to4': // 2002:aabb:ccdd::/48
      return new ipaddr.IPv4(bytes.slice(2, 6));
    default:
      return null;
  }
}

/**
 * True when `address` (an IP literal) must not be connected to in production: anything but ordinary
 * global unicast. ipaddr.js classifies the address against the special-purpose ranges (every range of
 * IANA's IPv4 and IPv6 special-purpose registries); an IPv6 address that embeds an IPv4 one is judged
 * by that IPv4 address. Special ranges that IANA marks globally reachable (AS112, AMT, ORCHIDv2, anycast
 * relays) are refused too: no webhook receiver lives there. Non-IPs are refused.
 */
export function isBlockedAddress(address: string): boolean {
  const ip = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  // net.isIP accepts only the canonical textual forms (ipaddr.js alone would also read "127.1" or octal).
  const family = net.isIP(ip);
  if (family === 0) return true;
  const parsed = ipaddr.parse(ip);
  const range = parsed.range();
  if (family === 4) return range !== 'unicast';
  const v6 = parsed as ipaddr.IPv6;
  const v4 = embeddedIpv4(v6, range);
  if (v4) return v4.range() !== 'unicast';
  return range !== 'unicast' || !v6.match(GLOBAL_UNICAST_V6);
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
