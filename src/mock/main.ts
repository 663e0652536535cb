/**
 * `npm run mock` / `npm run mock:dynamic`: the Prism mock of the contract for
 * frontend work. Starts Prism, waits until it answers, says where it is, and
 * passes Ctrl-C on. Exit codes: Prism's own once it ends (0 when stopped with
 * Ctrl-C or SIGTERM), 1 when it does not come up, 2 on bad usage.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { ExitCode, runCli } from '../cli/exit.js';
import { launch } from '../process/launch.js';
import { waitForHttp } from '../process/ready.js';
import { MOCK_DEFAULTS, type MockOptions, prismCommand, prismReadinessProbe } from './prism.js';

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

await runCli('mock', async () => {
  const options = program.parse().opts<MockOptions>();
  // In this process's group, so a terminal's Ctrl-C reaches Prism as it reaches npm and this launcher.
  const prism = launch(prismCommand(options), { output: 'inherit', ownGroup: false });
  let stopRequested = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      stopRequested = true;
      prism.signal(signal);
    });
  }

  const url = `http://${options.host}:${options.port}`;
  try {
    await waitForHttp(prism, prismReadinessProbe(url), { timeoutMs: 60_000, intervalMs: 100 });
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
  } catch (error) {
    // Stopped while starting is still a stop on request; see below.
    if (!stopRequested) {
      process.stderr.write(`mock: ${error instanceof Error ? error.message : String(error)}\n`);
      await prism.stop();
      return ExitCode.failed;
    }
  }
  const exit = await prism.exited;
  // Stopped on request (Ctrl-C, SIGTERM) is a clean exit; Prism dying on its own is not.
  return exit.code ?? (stopRequested ? ExitCode.ok : ExitCode.failed);
});
