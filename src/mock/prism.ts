import { createRequire } from 'node:module';
import { dirname, relative, resolve } from 'node:path';
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
  /** Which api of `redocly.yaml` to serve: `main` (the public API, the default) or `account`. */
  api?: string;
}

export const MOCK_DEFAULTS: MockOptions = { host: '127.0.0.1', port: 4010, dynamic: false, verbose: false };

/**
 * The command line that starts Prism 5.14 on the contract. Prism's logging is a
 * pino level chosen with `--verboseLevel` (trace, debug, info, warn, error, fatal,
 * silent; default info, which logs every request). Quiet mode uses `warn`: the
 * happy path prints nothing, and a request Prism rejects still prints why
 * (its VALIDATOR lines are warn and error), which is what a frontend developer
 * needs. `--verboseLevel` cannot be given twice (yargs turns it into an array
 * and pino refuses it), so the level is chosen here, once.
 * `--multiprocess=false` keeps Prism in one process, so stopping it is one signal.
 */
export function prismCommand(options: MockOptions): { command: string; args: string[] } {
  const require = createRequire(import.meta.url);
  const manifest = require.resolve('@stoplight/prism-cli/package.json');
  const bin = resolve(dirname(manifest), (require(manifest) as { bin: { prism: string } }).bin.prism);
  const spec = relative(projectRoot, readContractPaths(projectRoot, options.api ?? 'main').spec);
  const args = [
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
  if (options.dynamic) args.push('--dynamic');
  if (options.seed !== undefined) args.push('--seed', options.seed);
  return { command: process.execPath, args };
}
