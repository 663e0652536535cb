/**
 * Who a per-client budget counts a request against (issue 33 point 3). An IPv6 client usually holds a whole /64
 * (SLAAC, privacy addresses): counted per full address, one machine could spread a flood over 2^64 addresses and
 * never meet a budget. So an IPv6 client is counted by its network prefix (`/64` by default, `CLIENT_IPV6_PREFIX`),
 * an IPv4-mapped IPv6 address (`::ffff:203.0.113.7`, a dual-stack listener's view of an IPv4 client) as the IPv4
 * address it is, and an IPv4 client by its address. The request log keeps the full address.
 */
import ipaddr from 'ipaddr.js';

/** The prefix an IPv6 client is counted by, unless configured: one subnet, what one site or machine is given. */
export const DEFAULT_IPV6_PREFIX_LENGTH = 64;

/** The budget key of a client address: itself for IPv4 and anything that is not an address, its network for IPv6. */
export function clientBudgetKey(address: string, ipv6PrefixLength: number = DEFAULT_IPV6_PREFIX_LENGTH): string {
  // Most clients are IPv4 or in-process: no parse on that path.
  if (!address.includes(':')) return address;
  let parsed: ipaddr.IPv6;
  try {
    parsed = ipaddr.IPv6.parse(address);
  } catch {
    return address;
  }
  if (parsed.isIPv4MappedAddress()) return parsed.toIPv4Address().toString();
  if (ipv6PrefixLength >= 128) return parsed.toNormalizedString();
  const network = ipaddr.IPv6.networkAddressFromCIDR(`${parsed.toString()}/${ipv6PrefixLength}`);
  return `${network.toString()}/${ipv6PrefixLength}`;
}
