/**
 * `npm run mock` / `npm run mock:dynamic`: the Prism mock of the contract for
 * frontend work. Starts Prism on a loopback port of its own, puts the mock's
 * edge in front of it on `--host`/`--port` (Prism's errors in the contract's
 * words: `src/mock/edge.ts`), waits until it answers, says where it is, and
 * passes Ctrl-C on. With `--stateful` the edge remembers what each caller makes
 * (`stateful/`): SIGHUP or `POST /__mock/reset` forgets it. Exit codes: Prism's own once it ends (0 when stopped with
 * Ctrl-C or SIGTERM), 1 when it does not come up, 2 on bad usage.
 */
import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import { Command, InvalidArgumentError, Option } from 'commander';
import { ExitCode, runCli } from '../cli/exit.js';
import { portToBindLater } from '../cli/port-to-bind-later.js';
import { waitForHttp } from '../cli/wait-for-http.js';
import { projectRoot, readContractPaths } from '../contract/project.js';
import { loadSpec } from '../contract/spec.js';
import { createMockEdge, RESET_PATH } from './edge.js';
import { MOCK_DEFAULTS, type MockOptions, prismCommand, prismReadinessProbe } from './prism.js';
import { launchPrism } from './prism-launcher.js';
import { coverageLines } from './stateful/coverage.js';
import { createStatefulMock } from './stateful/stateful-mock.js';

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
  .option('--stateful', 'remember what each credential creates, changes and deletes (POST /__mock/reset or SIGHUP forgets it)', false)
  .option('--seed <seed>', 'make dynamic bodies repeatable')
  .option('--verbose', "log every request and Prism's negotiation (slower)", false)
  .addOption(new Option('--api <name>', 'which contract of redocly.yaml to serve').default('main'))
  .addOption(new Option('--spec <file>', "serve this OpenAPI document instead (a copy of the contract, or another team's; with --stateful it remembers too)"))
  .exitOverride()
  .showHelpAfterError('(run with --help for usage)');

await runCli('mock', async () => {
  const options = program.parse().opts<MockOptions>();
  const specFile = options.spec ?? readContractPaths(projectRoot, options.api ?? 'main').spec;
  const spec = loadSpec(specFile);
  // Prism answers only the edge, on loopback; the edge listens where the developer asked.
  const prismUrl = `http://127.0.0.1:${await portToBindLater()}`;
  const { prism, serving, stopRequested } = launchPrism(prismCommand({ ...options, spec: specFile, host: '127.0.0.1', port: Number(new URL(prismUrl).port) }));
  let server: Server | undefined;

  try {
    // A foreign document (no `x-limits`: not one of this project's contracts) has no known operation to probe; any path Prism does not serve answers 404 once it is up.
    const probe = spec['x-limits'] === undefined ? { url: `${prismUrl}/__mock/readiness`, status: 404 } : prismReadinessProbe(prismUrl, options.api);
    await waitForHttp(prism, probe, { timeoutMs: 60_000, intervalMs: 100 });
    const stateful = options.stateful ? createStatefulMock(spec) : undefined;
    if (stateful) process.on('SIGHUP', () => stateful.reset());
    const edge = createMockEdge({ prismUrl, spec, ...(stateful && { stateful }) });
    const url = await new Promise<string>((resolve, reject) => {
      server = serve({ fetch: edge.fetch, port: options.port, hostname: options.host }, (info) => resolve(`http://${options.host}:${info.port}`)) as Server;
      serving(server);
      server.once('error', reject);
    });
    const mode = options.dynamic ? 'dynamic: bodies generated from the schemas' : 'static: the named examples of the spec';
    const account = options.api === 'account';
    const foreign = spec['x-limits'] === undefined;
    process.stdout.write(
      [
        '',
        `Prism mock of the contract at ${url} (${mode})`,
        foreign
          ? '  Any credential is accepted; only its presence is checked.'
          : account
            ? '  Any session cookie is accepted; only its presence is checked.'
            : '  Any bearer token is accepted; only its presence is checked.',
        `  Pick an answer with the Prefer header: "Prefer: example=${foreign ? '<name>' : 'lastPage'}", "Prefer: code=401", "Prefer: dynamic=true".`,
        ...(foreign
          ? []
          : [
              account
                ? `  curl -s ${url}/session -b '__Host-session=anything'`
                : `  curl -s -X POST ${url}/ -H 'Authorization: Bearer anything' -H 'Content-Type: application/json' -d '{"sort":"asc"}'`,
            ]),
        options.verbose ? '' : '  Quiet: rejected requests are logged; add --verbose to log every request.',
        ...(stateful ? coverageLines(stateful.coverage, `POST ${url}${RESET_PATH}`) : []),
        '',
      ].join('\n'),
    );
  } catch (error) {
    // Stopped while starting is still a stop on request; see below.
    if (!stopRequested()) {
      process.stderr.write(`mock: ${error instanceof Error ? error.message : String(error)}\n`);
      server?.close();
      await prism.stop();
      return ExitCode.failed;
    }
  }
  const exit = await prism.exited;
  server?.close();
  // Stopped on request (Ctrl-C, SIGTERM) is a clean exit; Prism dying on its own is not.
  return exit.code ?? (stopRequested() ? ExitCode.ok : ExitCode.failed);
});
