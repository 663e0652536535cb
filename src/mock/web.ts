/**
 * `npm run mock:web`: the pages against the Prism mock of the account API, for
 * frontend work without a server or a database. Starts Prism on the account
 * contract, builds the pages as `npm start` does, and serves them on one origin
 * with `/api/*` passed to Prism through the mock's edge (`edge.ts`), so the session cookie and the same-origin calls
 * behave as they do against the web application. By default the edge remembers
 * (`stateful/`): a sign-up or sign-in is a session of that user, keys made are
 * listed, revoked and removed, each session sees its own; `--examples` (or
 * `--dynamic`) gives Prism's answers alone. Exit codes: Prism's own, or 2
 * on bad usage.
 */

import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { Hono } from 'hono';
import { waitForHttp } from '../cli/wait-for-http.js';
import { loadContractSpec } from '../contract/spec.js';
import { buildPages } from '../pages/assets.js';
import { pageResponse } from '../pages/serve.js';
import { createMockEdge, RESET_PATH } from './edge.js';
import { prismCommand, prismReadinessProbe } from './prism.js';
import { launchPrism } from './prism-launcher.js';
import { coverageLines } from './stateful/coverage.js';
import { createStatefulMock } from './stateful/stateful-mock.js';

function port(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0 || parsed > 65_535) throw new InvalidArgumentError('must be a port number (0-65535)');
  return parsed;
}

interface WebMockOptions {
  host: string;
  port: number;
  mockPort: number;
  publicApiUrl: string;
  dynamic: boolean;
  examples: boolean;
  verbose: boolean;
}

const program = new Command('mock:web')
  .description('Serve the pages against the Prism mock of the account API (openapi/account.yaml).')
  .addOption(new Option('--host <host>', 'interface to listen on').default('127.0.0.1'))
  .addOption(new Option('--port <port>', 'port of the pages').default(4012).argParser(port))
  .addOption(new Option('--mock-port <port>', 'port of the Prism mock of the account API').default(4011).argParser(port))
  .option('--public-api-url <url>', 'the {base_url} the pages show in their curl (the public mock of `npm run mock` by default)', 'http://127.0.0.1:4010')
  .option('--examples', "answer with the spec's named examples only, remembering nothing (the mock before it was stateful)", false)
  .option('--dynamic', 'answer with bodies generated from the schemas, remembering nothing', false)
  .option('--verbose', "log every request and Prism's negotiation (slower)", false)
  .exitOverride()
  .showHelpAfterError('(run with --help for usage)');

/** What the API's answers are in this mode, for the start message. */
function answersOf(options: WebMockOptions): string {
  if (options.dynamic) return 'bodies generated from the schemas, nothing remembered';
  if (options.examples) return 'the named examples, nothing remembered';
  return 'stateful: Prism validates, the edge remembers';
}

let options: WebMockOptions;
try {
  options = program.parse().opts<WebMockOptions>();
} catch (error) {
  if (!(error instanceof CommanderError)) throw error;
  process.exit(error.exitCode === 0 ? 0 : 2);
}

const { prism, serving, stopRequested, requestStop } = launchPrism(
  prismCommand({ host: options.host, port: options.mockPort, dynamic: options.dynamic, verbose: options.verbose, api: 'account' }),
);
const stopped = prism.exited.then(({ code, signal }) => code ?? (stopRequested() ? 0 : signal ? 1 : 0));

const mockUrl = `http://${options.host}:${options.mockPort}`;
try {
  const [pages] = await Promise.all([
    buildPages({ publicApiUrl: options.publicApiUrl }), // A valid request asking Prism for its 401, so quiet mode does not log the probe as a rejected request.
    waitForHttp(prism, prismReadinessProbe(mockUrl, 'account'), { timeoutMs: 60_000, intervalMs: 100 }),
  ]);
  const app = new Hono();
  // The account API is Prism's, behind the mock's edge (its errors in the contract's words): the path without /api, the
  // method, headers (the cookie among them) and body as sent.
  const spec = loadContractSpec('account');
  const stateful = options.examples || options.dynamic ? undefined : createStatefulMock(spec);
  if (stateful) process.on('SIGHUP', () => stateful.reset());
  const edge = createMockEdge({ prismUrl: mockUrl, spec, basePath: '/api', ...(stateful && { stateful }) });
  app.all('/api/*', (c) => edge.fetch(c.req.raw));
  app.get('*', (c) => pageResponse(pages, c.req.path, { method: c.req.method, secure: false }));
  const url = await new Promise<string>((resolve) => {
    serving(serve({ fetch: app.fetch, port: options.port, hostname: options.host }, (info) => resolve(`http://${options.host}:${info.port}`)) as Server);
  });
  process.stdout.write(
    [
      '',
      `Web application on ${url}`,
      '',
      `The pages against the Prism mock of the account API at ${mockUrl} (openapi/account.yaml), ${answersOf(options)}.`,
      ...(stateful
        ? [
            '  Sign up or sign in with any name and password: the session is that user, and what it makes is kept in memory for that user only.',
            ...coverageLines(stateful.coverage, `POST ${url}/api${RESET_PATH}`),
          ]
        : ["  Any user name and password signs in; every answer is Prism's, so a key made here is not kept."]),
      `  The curl on the page points at ${options.publicApiUrl}: run \`npm run mock\` beside this one to answer it.`,
      "  Open it in Chromium: the mock's example cookie is `__Host-session` with Secure, which Chromium keeps for http://127.0.0.1.",
      '',
    ].join('\n'),
  );
} catch (error) {
  process.stderr.write(`mock:web: ${error instanceof Error ? error.message : String(error)}\n`);
  requestStop();
}
process.exitCode = await stopped;
