import { isIP } from 'node:net';
import { Command, InvalidArgumentError } from 'commander';
import { UsageError } from '../../src/cli/exit.js';
import { refuseOptionsAsValues } from '../../src/cli/option-values.js';

export interface SoakOptions {
  url?: string;
  token?: string;
  pid?: number;
  duration: number;
  connections: number;
  slowClients: number;
  user: string;
  json?: boolean;
  /** Run the combined attack of issue 20 instead of the request mix. */
  attack?: boolean;
  /** With `--attack` and `--url`: root URL of the running server's web application. */
  webUrl?: string;
  /**
   * With `--attack` and `--url`, all three or none: where the /64 spread goes (the public API and web application of
   * a server, e.g. one instance of `npm run start:cluster`) and the local address it sends from, one that server
   * lists in TRUSTED_PROXIES, so it reads the client from X-Forwarded-For.
   */
  proxyUrl?: string;
  proxyWebUrl?: string;
  proxyAddress?: string;
}

/** The three options of the /64 spread against a running server, which go together. */
const PROXY_OPTIONS = '--proxy-url, --proxy-web-url and --proxy-address';

const positiveInteger = (name: string) => (value: string) => {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) throw new InvalidArgumentError(`${name} must be a whole number of at least 1`);
  return number;
};

/** An IP address to bind to: the soak cannot check here that it is this machine's, nor that the target trusts it. */
const ipAddress = (name: string) => (value: string) => {
  if (isIP(value) === 0) throw new InvalidArgumentError(`${name} must be an IP address of this machine (one the target lists in TRUSTED_PROXIES)`);
  return value;
};

const wholeNumber = (name: string) => (value: string) => {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0) throw new InvalidArgumentError(`${name} must be a whole number, 0 or more`);
  return number;
};

/**
 * Reads `npm run soak`'s arguments (without node and the script). Throws commander's error
 * (after commander printed it with `writeErr`) or a `UsageError` for options that do not go
 * together; `exitCodeFor` turns either into exit code 2.
 */
export function parseSoakArgs(args: readonly string[], writeErr: (text: string) => void = (text) => process.stderr.write(text)): SoakOptions {
  const program = new Command('soak')
    .description('Soak-test the API on loopback with a mix of valid and invalid requests, and report.')
    .option('--url <url>', 'root URL of a running server (default: start one on a temporary database)')
    .option('--token <key>', 'API key for --url')
    .option('--pid <pid>', 'pid of the server at --url, to report its RSS', positiveInteger('--pid'))
    .option('--duration <seconds>', 'how long to drive it', positiveInteger('--duration'), 60)
    .option('--connections <n>', 'concurrent connections', positiveInteger('--connections'), 16)
    .option(
      '--slow-clients <n>',
      'slow clients beside the load (slow headers, slow bodies, idle connections, unfinished GET bodies); 0 for none',
      wholeNumber('--slow-clients'),
      8,
    )
    .option('--user <name>', "whose fresh key to use when the soak starts the server (the demo user's seeded items make real pages)", 'demo')
    .option('--json', 'print the report as JSON')
    .option(
      '--attack',
      "the combined attack instead: made-up keys from many addresses, password guesses, sign-ups and a /64 spread (through a trusted hop), all at once, while a legitimate user's key must be served every second and its sign-ins succeed",
    )
    .option('--web-url <url>', "with --attack and --url: root URL of the running server's web application (the account API is under /api)")
    .option('--proxy-url <url>', 'with --attack and --url: root URL of the public API to send the /64 spread to (for the cluster: one instance)')
    .option('--proxy-web-url <url>', 'with --attack and --url: root URL of the web application to send the /64 spread to (that instance)')
    .option(
      '--proxy-address <address>',
      'with --attack and --url: the local address to send the /64 spread from, one the target trusts for X-Forwarded-For (for the cluster: 127.0.0.2)',
      ipAddress('--proxy-address'),
    )
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({ writeErr });
  const options = refuseOptionsAsValues(program).parse(args, { from: 'user' }).opts<SoakOptions>();
  checkProxyOptions(options);
  if (options.attack) {
    if (options.token !== undefined)
      throw new UsageError('--token does not apply with --attack: the legitimate user signs up and makes its key through the account API');
    if ((options.url === undefined) !== (options.webUrl === undefined))
      throw new UsageError('with --attack, --url and --web-url go together: both to target a running server, neither to start one');
    if (options.pid !== undefined) throw new UsageError('--pid does not apply with --attack');
    return options;
  }
  if (options.webUrl !== undefined) throw new UsageError('--web-url only applies with --attack');
  if ((options.url === undefined) !== (options.token === undefined))
    throw new UsageError('--url and --token go together: both to target a running server, neither to start one');
  if (options.pid !== undefined && options.url === undefined)
    throw new UsageError('--pid only applies with --url; a server the soak starts is measured anyway');
  return options;
}

/** The /64 spread's options: only with --attack against --url (a server the soak starts trusts a hop of its own), all three or none. */
function checkProxyOptions(options: SoakOptions): void {
  const given = [options.proxyUrl, options.proxyWebUrl, options.proxyAddress].filter((value) => value !== undefined).length;
  if (given === 0) return;
  if (!options.attack) throw new UsageError(`${PROXY_OPTIONS} only apply with --attack`);
  if (options.url === undefined)
    throw new UsageError(`${PROXY_OPTIONS} only apply with --url: a server the soak starts trusts a hop of its own for the /64 spread`);
  if (given !== 3) throw new UsageError(`${PROXY_OPTIONS} go together: where to send the /64 spread, and from which address the target trusts`);
}
