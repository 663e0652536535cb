import { createRequire } from 'node:module';
import { dirname, relative, resolve } from 'node:path';
import type { ReadinessProbe } from '../cli/wait-for-http.js';
import { projectRoot, readContractPaths } from '../contract/project.js';

export interface MockOptions {
  host: string;
  port: number;
  /** Generate bodies from the schemas (json-schema-faker) instead of serving the named examples. */
  dynamic: boolean;
  /** Log every request (Prism's `info` level). Off by default: per-request logging halves Prism's throughput. */
  verbose: boolean;
  /** Makes dynamic bodies repeatable. */
  seed?: string;
  /** The document to serve; default the contract (`redocly.yaml` says where). The bench serves a copy. */
  spec?: string;
  /** Which api of `redocly.yaml` to serve: `main` (the public API, the default) or `account`. */
  api?: string;
  /** Remember what callers make (the edge's stateful mock, `stateful/`); not a Prism option. */
  stateful?: boolean;
}

export const MOCK_DEFAULTS: MockOptions = { host: '127.0.0.1', port: 4010, dynamic: false, verbose: false };

/**
 * The command line (for `launch`) that starts Prism 5.14 on the contract. Prism's logging is a
 * pino level chosen with `--verboseLevel` (trace, debug, info, warn, error, fatal,
 * silent; default info, which logs every request). Quiet mode uses `warn`: the
 * happy path prints nothing, and a request Prism rejects still prints why
 * (its VALIDATOR lines are warn and error), which is what a frontend developer
 * needs. `--verboseLevel` cannot be given twice (yargs turns it into an array
 * and pino refuses it), so the level is chosen here, once.
 * `--multiprocess=false` keeps Prism in one process, so stopping it is one signal.
 */
export function prismCommand(options: MockOptions): string[] {
  const require = createRequire(import.meta.url);
  const manifest = require.resolve('@stoplight/prism-cli/package.json');
  const bin = resolve(dirname(manifest), (require(manifest) as { bin: { prism: string } }).bin.prism);
  const spec = relative(projectRoot, options.spec ?? readContractPaths(projectRoot, options.api ?? 'main').spec);
  const argv = [
    process.execPath,
    bin,
    'mock',
    spec,
    '--host',
    options.host,
    '--port',
    String(options.port),
    '--verboseLevel',
    options.verbose ? 'info' : 'warn',
    '--multiprocess=false',
  ];
  if (options.dynamic) argv.push('--dynamic');
  if (options.seed !== undefined) argv.push('--seed', options.seed);
  return argv;
}

/**
 * The request a started Prism answers once it serves the contract: `GET /shared` must come back
 * `401`, as from the implementation. A bearer token with `Prefer: code=401` asks Prism for its
 * documented 401, so the probe is a valid request that quiet mode does not log as rejected.
 */
export function prismReadinessProbe(baseUrl: string, api = 'main'): ReadinessProbe {
  const root = baseUrl.replace(/\/+$/, '');
  // The account API's cookie-authenticated session read plays the same part for the second contract.
  if (api === 'account') return { url: `${root}/session`, status: 401, headers: { Cookie: '__Host-session=readiness-probe', Prefer: 'code=401' } };
  return { url: `${root}/shared`, status: 401, headers: { Authorization: 'Bearer readiness-probe', Prefer: 'code=401' } };
}
