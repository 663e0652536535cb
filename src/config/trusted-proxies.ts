import proxyAddr from 'proxy-addr';
import { ConfigError } from './config-error.js';

/** The headers a trusted proxy may put the client's address in; a deployment names the one its proxies write. */
export const FORWARDED_HEADERS = ['x-forwarded-for', 'forwarded'] as const;
export type ForwardedHeader = (typeof FORWARDED_HEADERS)[number];

/** The proxies whose word on the client's address is taken (`TRUSTED_PROXIES`), and the header they write it in (`FORWARDED_HEADER`). */
export interface TrustedProxies {
  /** Addresses, CIDR ranges (`10.0.0.0/8`, `fd00::/8`) or proxy-addr's names (`loopback`, `linklocal`, `uniquelocal`). */
  addresses: readonly string[];
  header: ForwardedHeader;
}

/**
 * `TRUSTED_PROXIES`: comma-separated addresses and CIDR ranges (or proxy-addr's `loopback`, `linklocal`,
 * `uniquelocal`), each checked by proxy-addr's `compile` as `src/http/client-address.ts` will use it;
 * `FORWARDED_HEADER`: the one header those proxies write the client's address in.
 */
export function readTrustedProxies(env: NodeJS.ProcessEnv): TrustedProxies {
  const addresses = (env['TRUSTED_PROXIES'] ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  for (const entry of addresses) {
    try {
      proxyAddr.compile([entry]);
    } catch {
      throw new ConfigError(
        `TRUSTED_PROXIES must list IP addresses or CIDR ranges (such as 10.0.0.5, 10.0.0.0/8, fd00::/8, or loopback), separated by commas; ${JSON.stringify(entry)} is neither`,
      );
    }
  }
  const header = env['FORWARDED_HEADER'] || 'x-forwarded-for';
  if (!FORWARDED_HEADERS.includes(header as ForwardedHeader))
    throw new ConfigError(`FORWARDED_HEADER must be one of ${FORWARDED_HEADERS.join(', ')} (the header your proxies write), not ${JSON.stringify(header)}`);
  return { addresses, header: header as ForwardedHeader };
}
