/** The command line of `npm run contract` (`main.ts`), apart so its usage is tested in-process. */
import { Command, InvalidArgumentError, Option } from 'commander';
import { refuseOptionsAsValues } from '../cli/option-values.js';
import { readContracts } from '../contract/project.js';
import type { Target } from './known-differences.js';
import type { RefusedCredential } from './phases/index.js';

export interface CliOptions {
  api: string;
  baseUrl: string;
  token: string;
  target: Target;
  json?: boolean;
  maxPages: number;
  timeout: number;
  allowWrites?: boolean;
  /** Requests per operation of the property phase (`phases/property.ts`); 0 leaves it out. */
  examples: number;
  seed?: number;
  stateful: boolean;
  refusedToken: RefusedCredential[];
  otherToken?: string;
}

function absoluteUrl(value: string): string {
  if (!URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol))
    throw new InvalidArgumentError('must be an absolute http(s) URL, e.g. http://127.0.0.1:3000');
  return value;
}

function apiKey(value: string): string {
  if (value.trim() === '' || /\s/.test(value)) throw new InvalidArgumentError('must be a non-empty API key without spaces');
  return value;
}

function count(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0 || parsed > 10_000) throw new InvalidArgumentError('must be a whole number from 0 to 10000');
  return parsed;
}

function seed(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0 || parsed >= 2 ** 31) throw new InvalidArgumentError('must be a whole number from 0 to 2147483647');
  return parsed;
}

/** `revoked key=tka_…`, repeatable: a credential every secured operation must refuse. */
function refused(value: string, previous: RefusedCredential[] = []): RefusedCredential[] {
  const at = value.indexOf('=');
  const label = value.slice(0, at).trim();
  const token = value.slice(at + 1);
  if (at < 1 || label === '' || token === '' || /\s/.test(token)) throw new InvalidArgumentError('must be <label>=<credential>, e.g. "revoked key=tka_..."');
  return [...previous, { label, token }];
}

function positiveInteger(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) throw new InvalidArgumentError('must be a positive integer');
  return parsed;
}

/**
 * Reads `npm run contract`'s arguments (those after its name). Bad usage throws commander's error,
 * after writing its message with `writeErr`; `exitCodeFor` turns it into exit code 2.
 */
export function parseContractArgs(argv: readonly string[], writeErr: (text: string) => void = (text) => process.stderr.write(text)): CliOptions {
  const program = new Command('contract')
    .description(
      'Check a running API against openapi/openapi.yaml with checks derived from the spec, for every operation. ' +
        'Positive cases of operations that may write (an unsafe method not marked x-read-only) are skipped unless --allow-writes.',
    )
    .requiredOption('--base-url <url>', 'root of the API, e.g. http://127.0.0.1:3000 (the account API: http://127.0.0.1:3001/api)', absoluteUrl)
    .addOption(
      new Option('--token <key>', 'a valid credential for that API: an API key, or for the account API the value of a session cookie')
        .env('API_KEY')
        .argParser(apiKey)
        .makeOptionMandatory(),
    )
    .addOption(
      new Option('--api <name>', 'which contract of redocly.yaml to check: main (the public API) or account')
        .choices(readContracts().map((contract) => contract.name))
        .default('main'),
    )
    .addOption(
      new Option('--target <target>', 'what the URL serves; "prism" allows the differences listed in src/contract-suite/known-differences.ts')
        .choices(['implementation', 'prism'])
        .default('implementation'),
    )
    .option('--json', 'print the report as JSON on stdout')
    .option('--max-pages <n>', 'most pages a pagination walk reads', positiveInteger, 10)
    .option('--timeout <ms>', 'time limit per request', positiveInteger, 10_000)
    .option('--allow-writes', 'also send positive cases that may write; only against a disposable deployment')
    .option('--examples <n>', 'valid and invalid requests the property phase generates per operation (0: no property phase)', count, 20)
    .option('--seed <n>', "the property phase's seed (default: a random one, printed in the report so the run can be repeated)", seed)
    .option('--no-stateful', 'leave out the stateful phase (OpenAPI links; create → read → update → delete → read with --allow-writes)')
    .option(
      '--refused-token <label=credential>',
      'a credential every secured operation must refuse with 401, e.g. "revoked key=tka_..." (repeatable)',
      refused,
      [],
    )
    .addOption(
      new Option('--other-token <key>', "a credential of another user who shares nothing with the caller: must see none of the caller's resources")
        .env('OTHER_API_KEY')
        .argParser(apiKey),
    )
    .exitOverride()
    .configureOutput({ writeErr })
    .showHelpAfterError('(run with --help for usage)');

  return refuseOptionsAsValues(program).parse(argv, { from: 'user' }).opts<CliOptions>();
}
