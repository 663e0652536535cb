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
}

const positiveInteger = (name: string) => (value: string) => {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) throw new InvalidArgumentError(`${name} must be a whole number of at least 1`);
  return number;
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
      "the combined attack instead: made-up keys from many addresses, password guesses and sign-ups, all at once, while a legitimate user's key must be served every second and its sign-ins succeed",
    )
    .option('--web-url <url>', "with --attack and --url: root URL of the running server's web application (the account API is under /api)")
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({ writeErr });
  const options = refuseOptionsAsValues(program).parse(args, { from: 'user' }).opts<SoakOptions>();
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
