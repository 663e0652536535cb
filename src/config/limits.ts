import type { ConnectionLimits, Limits } from '../contract/limits.js';
import { ConfigError, type ServerConfig } from './env.js';

/** Every limit the server enforces, as it will run: the spec's `x-limits`, overridden where the environment says so. */
export type ResolvedLimits = Limits & { headersTimeoutMs: number; requestTimeoutMs: number };

/** What the spec says (`compileRequestContract` reads it from `x-limits`; the types are derived from its schema). */
export interface SpecLimits {
  limits: Limits;
  connectionLimits: ConnectionLimits;
}

/** The one place a limit is chosen: an environment override, else the spec's value. */
export function resolveLimits(spec: SpecLimits, config: ServerConfig): ResolvedLimits {
  const headersTimeoutMs = config.headersTimeoutMs ?? spec.connectionLimits.headersTimeoutSeconds * 1000;
  const requestTimeoutMs = config.requestTimeoutMs ?? spec.connectionLimits.requestTimeoutSeconds * 1000;
  // Node refuses to start a server whose headers may take longer than the whole request.
  if (headersTimeoutMs > requestTimeoutMs)
    throw new ConfigError(
      `the headers timeout (${headersTimeoutMs} ms, HEADERS_TIMEOUT_MS) cannot be longer than the request timeout (${requestTimeoutMs} ms, REQUEST_TIMEOUT_MS)`,
    );
  return {
    maxBodyBytes: config.maxBodyBytes ?? spec.limits.maxBodyBytes,
    rateLimit: {
      requests: config.rateLimitRequests ?? spec.limits.rateLimit.requests,
      windowSeconds: config.rateLimitWindowSeconds ?? spec.limits.rateLimit.windowSeconds,
    },
    failedAuthentication: {
      perAddress: config.failedAuthPerAddress ?? spec.limits.failedAuthentication.perAddress,
      windowSeconds: spec.limits.failedAuthentication.windowSeconds,
    },
    headersTimeoutMs,
    requestTimeoutMs,
  };
}
