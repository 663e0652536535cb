import type { IncomingMessage } from 'node:http';
import parseForwarded from 'forwarded-parse';
import type { Context } from 'hono';
import proxyAddr from 'proxy-addr';
import type { TrustedProxies } from '../config/trusted-proxies.js';

/** How an app learns who is calling, for the per-client budgets and limits and the request log. */
export type ClientAddress = (c: Context) => string;

/** The same, from the Node request itself: for the listener's answers outside the app. */
export type IncomingAddress = (incoming: IncomingMessage | undefined) => string;

/** The address of a request with no socket: made in-process (tests, `app.request()`); all such requests share it. */
export const IN_PROCESS = 'in-process';

/**
 * Whether an address is one of the trusted proxies: proxy-addr's `compile`, which throws a `TypeError`
 * naming an entry that is neither an address nor a range (`src/config/trusted-proxies.ts` refuses such an entry at startup).
 */
export function trustedProxy(addresses: readonly string[]): (address: string) => boolean {
  const trust = proxyAddr.compile([...addresses]);
  return (address) => trust(address, 0);
}

/**
 * The one client-address resolver: the TCP peer, unless the peer is a trusted proxy, in which case the
 * address that proxy says it forwarded for, walking from the nearest hop back past every trusted one
 * (proxy-addr's rule, as Express's `trust proxy`). Without trusted proxies the forwarded headers are
 * never read: anyone can send them.
 *
 * `x-forwarded-for` is read by proxy-addr itself; `forwarded` (RFC 7239) is parsed by forwarded-parse,
 * its `for=` values stripped of their port, and walked the same way. A `Forwarded` header that does not
 * parse counts as naming no one beyond the peer. Only the header the deployment names is read: a proxy
 * that writes one passes the other through from the client untouched.
 */
export function clientAddress(proxies?: TrustedProxies): ClientAddress {
  const of = incomingAddress(proxies);
  return (c) => of((c.env as { incoming?: IncomingMessage } | undefined)?.incoming);
}

/** {@link clientAddress} on the Node request itself. */
export function incomingAddress(proxies?: TrustedProxies): IncomingAddress {
  if (!proxies || proxies.addresses.length === 0) return (incoming) => incoming?.socket.remoteAddress ?? IN_PROCESS;
  const trust = proxyAddr.compile([...proxies.addresses]);
  if (proxies.header === 'x-forwarded-for') return (incoming) => (incoming?.socket.remoteAddress === undefined ? IN_PROCESS : proxyAddr(incoming, trust));
  return (incoming) => {
    const peer = incoming?.socket.remoteAddress;
    if (incoming === undefined || peer === undefined) return IN_PROCESS;
    // Nearest first: the peer, then the hops the header lists from the last one back.
    const hops = [peer, ...forwardedFor(incoming.headers.forwarded).reverse()];
    for (let index = 0; index < hops.length - 1; index++) if (!trust(hops[index] as string, index)) return hops[index] as string;
    return hops[hops.length - 1] as string;
  };
}

/** The TCP peer alone, as @hono/node-server passes the Node request in `c.env.incoming`: the default without trusted proxies. */
export const socketAddress: ClientAddress = clientAddress();

/** The `for=` of each element of a `Forwarded` header, in the order written, without ports or brackets; none when it does not parse. */
function forwardedFor(header: string | undefined): string[] {
  if (header === undefined || header === '') return [];
  let elements: Record<string, string>[];
  try {
    elements = parseForwarded(header);
  } catch {
    return [];
  }
  return elements.map((element) => withoutPort(element['for'] ?? 'unknown'));
}

/** `[2001:db8::1]:4711` → `2001:db8::1`, `192.0.2.43:47011` → `192.0.2.43`; names (`unknown`, `_hidden`) as they are. */
function withoutPort(node: string): string {
  const bracketed = /^\[([^\]]*)\](?::\d+)?$/.exec(node);
  if (bracketed) return bracketed[1] as string;
  const v4 = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(node);
  return v4 ? (v4[1] as string) : node;
}
