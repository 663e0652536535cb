/**
 * `npm run mock` / `npm run mock:dynamic`: the Prism mock of the contract for
 * frontend work. Starts Prism, waits until it answers, says where it is, and
 * passes Ctrl-C on. Exit codes: Prism's own, or 2 on bad usage.
 */
import { spawn } from 'node:child_process';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { projectRoot } from '../contract/project.js';
import { MOCK_DEFAULTS, prismCommand, type MockOptions } from './prism.js';
import { waitForApi } from './ready.js';

function port(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0 || parsed > 65_535) throw new InvalidArgumentError('must be a port number (0-65535)');
  return parsed;
}

const program = new Command('mock')
  .description('Serve the contract with the Stoplight Prism mock.')
  .addOption(new Option('--host <host>', 'interface to listen on').default(MOCK_DEFAULTS.host))
  .addOption(new Option('--port <port>', 'port to listen on').default(MOCK_DEFAULTS.port).argParser(port))
  .option('--dynamic', 'generate bodies from the schemas instead of serving the named examples', false)
  .option('--seed <seed>', 'make dynamic bodies repeatable')
  .option('--verbose', "log every request and Prism's negotiation (slower)", false)
  .exitOverride()
  .showHelpAfterError('(run with --help for usage)');

let options: MockOptions;
try {
  options = program.parse().opts<MockOptions>();
} catch (error) {
  if (!(error instanceof CommanderError)) throw error;
  process.exit(error.exitCode === 0 ? 0 : 2);
}

const { command, args } = prismCommand(options);
const prism = spawn(command, args, { cwd: projectRoot, stdio: 'inherit' });
let stopRequested = false;
// Stopped on request (Ctrl-C, SIGTERM) is a clean exit; Prism dying on its own is not.
const stopped = new Promise<number>((done) => prism.once('exit', (code, signal) => done(code ?? (stopRequested ? 0 : signal ? 1 : 0))));
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    stopRequested = true;
    prism.kill(signal);
  });
}

const url = `http://${options.host}:${options.port}`;
// A valid request asking Prism for its 401, so quiet mode does not log the probe as a rejected request.
waitForApi(url, { stopped, timeoutMs: 60_000, headers: { Authorization: 'Bearer readiness-probe', Prefer: 'code=401' } }).then(
  () => {
    const mode = options.dynamic ? 'dynamic: bodies generated from the schemas' : 'static: the named examples of the spec';
    process.stdout.write(
      [
        '',
        `Prism mock of the contract at ${url} (${mode})`,
        '  Any bearer token is accepted; only its presence is checked.',
        '  Pick an answer with the Prefer header: "Prefer: example=lastPage", "Prefer: code=401", "Prefer: dynamic=true".',
        `  curl -s -X POST ${url}/ -H 'Authorization: Bearer anything' -H 'Content-Type: application/json' -d '{"sort":"asc"}'`,
        options.verbose ? '' : '  Quiet: rejected requests are logged; add --verbose to log every request.',
        '',
      ].join('\n'),
    );
  },
  (error: unknown) => {
    process.stderr.write(`mock: ${error instanceof Error ? error.message : String(error)}\n`);
    prism.kill('SIGTERM');
  },
);
process.exitCode = await stopped;
