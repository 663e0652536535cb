/** The command line of `npm run contract` (`main.ts`), apart so its usage is tested in-process. */
import { Command, InvalidArgumentError, Option } from 'commander';
import { refuseOptionsAsValues } from '../cli/option-values.js';
import { hasContracts, readContracts } from '../contract/project.js';
import type { Target } from './known-differences.js';

/** A credential given on the command line: the security scheme it is for, and its value. */
export interface SchemeValue {
  scheme: string;
  value: string;
}

export interface CliOptions {
  api: string;
  /** A foreign OpenAPI document, instead of one of this project's contracts. */
  spec?: string;
  baseUrl: string;
  token?: string;
  credential: SchemeValue[];
  refusedCredential: SchemeValue[];
  config?: string;
  target: Target;
  json?: boolean;
  junit?: string;
  maxPages: number;
  timeout: number;
  maxResponseTime?: number;
  allowWrites?: boolean;
  /** Requests per operation of the property phase (`phases/property.ts`); 0 leaves it out. */
  examples: number;
  seed?: number;
  stateful: boolean;
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

function positiveInteger(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) throw new InvalidArgumentError('must be a positive integer');
  return parsed;
}

/** `<scheme>=<value>`, collected: the option may be given once per scheme. The value is never repeated in a message. */
function schemeValue(value: string, previous: SchemeValue[] = []): SchemeValue[] {
  const at = value.indexOf('=');
  if (at < 1 || at === value.length - 1) throw new InvalidArgumentError('must be <security scheme name>=<value>, e.g. bearerAuth=tka_…');
  return [...previous, { scheme: value.slice(0, at), value: value.slice(at + 1) }];
}

/**
 * Reads `npm run contract`'s arguments (those after its name). Bad usage throws commander's error,
 * after writing its message with `writeErr`; `exitCodeFor` turns it into exit code 2.
 */
export function parseContractArgs(argv: readonly string[], writeErr: (text: string) => void = (text) => process.stderr.write(text)): CliOptions {
  const program = new Command('contract')
    .description(
      "Check a running API against an OpenAPI document (this project's, or any 3.0/3.1 one with --spec), with checks derived from the spec for every operation. " +
        'Positive cases of operations that may write (an unsafe method not marked x-read-only) are skipped unless --allow-writes. ' +
        'Exit codes: 0 no violation, 1 violations, 2 bad usage or nothing answering, 3 the tool failed.',
    )
    .requiredOption('--base-url <url>', 'root of the API, e.g. http://127.0.0.1:3000 (the account API: http://127.0.0.1:3001/api)', absoluteUrl)
    .option('--spec <file>', "an OpenAPI 3.0 or 3.1 document (YAML or JSON; external $refs are bundled) instead of one of this project's contracts")
    .addOption(
      new Option(
        '--token <key>',
        'a valid credential for every security scheme without one of its own: an API key, or for the account API the value of a session cookie',
      )
        .env('API_KEY')
        .argParser(apiKey),
    )
    .option(
      '--credential <scheme=value>',
      'a valid credential for one security scheme of the spec (repeatable): a bearer token, user:password for HTTP Basic, an API key (header, query or cookie)',
      schemeValue,
      [],
    )
    .option('--refused-credential <scheme=value>', 'a credential the API must refuse with 401, e.g. a revoked or expired key (repeatable)', schemeValue, [])
    .option('--config <file>', 'a YAML or JSON file { rules: [...] } turning on conventions the spec does not declare (src/contract-suite/rules.ts)')
    .addOption(
      // Only in a project that lists its contracts (redocly.yaml); the suite installed on its own reads --spec.
      new Option('--api <name>', 'which contract of redocly.yaml to check: main (the public API) or account')
        .choices(hasContracts() ? readContracts().map((contract) => contract.name) : [])
        .default(hasContracts() ? 'main' : undefined)
        .conflicts('spec'),
    )
    .addOption(
      new Option(
        '--target <target>',
        'what the URL serves; "prism" (npm run mock) and "stateful-mock" (npm run mock -- --stateful) allow the differences listed in src/contract-suite/known-differences.ts',
      )
        .choices(['implementation', 'prism', 'stateful-mock'])
        .default('implementation'),
    )
    .option('--json', 'print the report as JSON on stdout')
    .option('--junit <file>', 'also write the report as JUnit XML to this file, for CI')
    .option('--max-pages <n>', 'most pages a pagination walk reads', positiveInteger, 10)
    .option('--timeout <ms>', 'time limit per request', positiveInteger, 10_000)
    .option('--max-response-time <ms>', 'an answer slower than this is a violation', positiveInteger)
    .option('--allow-writes', 'also send positive cases that may write; only against a disposable deployment')
    .option('--examples <n>', 'valid and invalid requests the property phase generates per operation (0: no property phase)', count, 20)
    .option('--seed <n>', "the property phase's seed (default: a random one, printed in the report so the run can be repeated)", seed)
    .option('--no-stateful', 'leave out the stateful phase (OpenAPI links; create → read → update → delete → read with --allow-writes)')
    .addOption(
      new Option('--other-token <key>', "a credential of another user who shares nothing with the caller: must see none of the caller's resources")
        .env('OTHER_API_KEY')
        .argParser(apiKey),
    )
    .exitOverride()
    .configureOutput({ writeErr })
    .showHelpAfterError('(run with --help for usage)');

  const options = refuseOptionsAsValues(program).parse(argv, { from: 'user' }).opts<CliOptions>();
  if (options.spec === undefined && !hasContracts())
    program.error('error: give the OpenAPI document to check: --spec <file> (no redocly.yaml here names a contract)', { exitCode: 2, code: 'contract.noSpec' });
  if (options.spec === undefined && options.token === undefined && options.credential.length === 0)
    program.error('error: give a credential: --token <key> (or API_KEY), or --credential <scheme>=<value>', { exitCode: 2, code: 'contract.noCredential' });
  return options;
}
