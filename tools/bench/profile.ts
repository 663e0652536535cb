/**
 * `npm run bench:profile`: this project's server (or, with `--server`, a peer to
 * compare with) under the benchmark load with `node --cpu-prof`, then the functions
 * and modules that took the most self time.
 * The .cpuprofile is kept (open it in Chrome DevTools or speedscope) under tools/bench/results/.
 */

import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { exitCodeFor, parseOrExit } from '../../src/cli/exit.js';
import { portToBindLater } from '../../src/cli/port-to-bind-later.js';
import { DEFAULT_LOG_LEVEL } from '../../src/config/env.js';
import { prebuildPages } from '../build/pages.js';
import { typescriptCommand } from '../process/commands.js';
import { describeExit, launch } from '../process/launch.js';
import { waitForHttp } from '../process/ready.js';
import { type SelfTime, summariseProfile } from './lib/cpuprofile.js';
import { REQUEST_BODY, requestHeaders } from './lib/fixture.js';
import { runLoad } from './lib/load.js';
import { pinLoadGenerator } from './lib/pin.js';
import { endProgress, progress } from './lib/progress.js';
import { prepareProjectDatabase } from './lib/project.js';
import { resultsPath } from './lib/results.js';
import { SERVERS, type ServerId } from './lib/servers.js';

// Prism ends on SIGTERM without writing a profile, so it is left out.
const PROFILABLE: ServerId[] = ['project', 'project-metrics', 'project-tracing', 'raw', 'hono', 'fastify', 'express'];

const number = (value: string) => {
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0) throw new InvalidArgumentError('must be a positive number');
  return parsed;
};
const program = new Command('bench:profile')
  .description("CPU profile of this project's server (or a peer, to compare) under the benchmark load")
  .addOption(new Option('--server <id>', 'which server to profile').choices(PROFILABLE).default('project'))
  .option('--duration <seconds>', 'profiled load', number, 15)
  .option('--connections <n>', 'concurrent connections', number, 50)
  .option('--top <n>', 'functions to list', number, 25)
  .option('--log-level <level>', "LOG_LEVEL of the server (default: the server's own, one line per request)", DEFAULT_LOG_LEVEL)
  .option('--tsx', 'run the server under the tsx loader rather than compiled, as `npm run bench` does (tsx adds a __name() call to each closure)', false)
  .exitOverride();
const options = parseOrExit('bench:profile', () =>
  program.parse().opts<{ server: ServerId; duration: number; connections: number; top: number; logLevel: string; tsx: boolean }>(),
);

const HOST = '127.0.0.1';
const pinning = pinLoadGenerator(true);
const work = mkdtempSync(join(tmpdir(), 'bench-profile-'));
const profileDirectory = resultsPath('profile', new Date(), `-${process.pid}`);
mkdirSync(profileDirectory, { recursive: true });

try {
  if (!options.tsx) {
    progress('profile: compiling the TypeScript servers (the product and the peers, tools/bench/tsconfig.build.json)');
    const build = await launch(typescriptCommand(['-p', 'tools/bench/tsconfig.build.json']), { output: 'inherit' }).exited;
    if (build.code !== 0) throw new Error(`the build failed (${describeExit(build)})`);
    // The compiled server reads the pages prebuilt, as after `npm run build`.
    await prebuildPages();
  }
  progress('profile: preparing a database with ten items and a key (the peers take the same key)');
  const { key, databasePath, userId } = await prepareProjectDatabase(work);
  const port = await portToBindLater(HOST);
  const command = SERVERS[options.server].launch({
    port,
    host: HOST,
    key,
    ownerId: userId,
    databasePath,
    mockSpec: '',
    logLevel: options.logLevel,
    compiled: !options.tsx,
  });
  const [node = process.execPath, ...rest] = command.argv;
  const argv = [node, '--cpu-prof', '--cpu-prof-dir', profileDirectory, ...rest];
  const log = join(work, 'server.log');
  const server = launch(argv, {
    env: command.env,
    output: { stdoutFile: log, stderrFile: log },
    ...(pinning.serverCore !== undefined && { core: pinning.serverCore }),
  });
  const url = `http://${HOST}:${port}/`;
  const headers = requestHeaders(key);
  await waitForHttp(server, { url, method: 'POST', headers, body: REQUEST_BODY, status: 200 }, { timeoutMs: 60_000 });
  progress(`profile: loading the server for ${options.duration} s`);
  const loadStarted = performance.now();
  const result = await runLoad({ url, headers, body: REQUEST_BODY, connections: options.connections, durationSeconds: options.duration, pid: server.pid });
  const loadMs = performance.now() - loadStarted;
  // The profile is written when the process exits; every profiled server exits 0 on SIGTERM.
  await server.stop({ graceMs: 10_000 });
  endProgress();

  const file = readdirSync(profileDirectory).find((name) => name.endsWith('.cpuprofile'));
  if (!file) throw new Error(`no .cpuprofile in ${profileDirectory}; the server ended with ${describeExit(await server.exited)}`);
  // Only the load counts, not the startup before it (nor the short shutdown after it).
  const summary = summariseProfile(join(profileDirectory, file), loadMs + 200);
  const cpuPerRequestUs = (summary.busyMs * 1000) / (result.ok + result.non2xx);
  console.log(
    `${SERVERS[options.server].label}: ${Math.round(result.requestsPerSecond)} req/s, p99 ${result.p99Ms.toFixed(2)} ms under ${options.connections} connections; ${pinning.note}`,
  );
  console.log(
    `CPU per request: ${cpuPerRequestUs.toFixed(1)} µs (busy ${(summary.busyMs / 1000).toFixed(2)} s of ${(summary.totalMs / 1000).toFixed(2)} s sampled under load); a cost that idle time on a shared machine does not blur`,
  );
  console.log(`profile: ${relative(process.cwd(), join(profileDirectory, file))}\n`);
  const answered = result.ok + result.non2xx;
  console.log('where each microsecond of a request goes (busy time by stage, per request):');
  for (const stage of summary.stages) {
    console.log(`${((stage.selfMs * 1000) / answered).toFixed(1).padStart(7)} µs  ${(stage.share * 100).toFixed(1).padStart(5)}%  ${stage.name}`);
  }
  console.log(`${cpuPerRequestUs.toFixed(1).padStart(7)} µs  100.0%  in all\n`);
  console.log(table('self time by module', summary.modules.slice(0, 15)));
  console.log('');
  console.log(table('self time by function', summary.functions.slice(0, options.top)));
  if (summary.inclusive.length > 0) {
    console.log('');
    console.log(table('time including callees, project code and Hono middleware (share of busy time)', summary.inclusive.slice(0, options.top)));
  }
} catch (error) {
  endProgress();
  process.exitCode = exitCodeFor('bench:profile', error);
} finally {
  rmSync(work, { recursive: true, force: true });
}
process.exit();

function table(title: string, rows: SelfTime[]): string {
  const lines = rows.map(
    (row) => `${(row.share * 100).toFixed(1).padStart(5)}%  ${row.selfMs.toFixed(0).padStart(6)} ms  ${row.name}${row.where ? `  ${row.where}` : ''}`,
  );
  return [`${title}:`, ...lines].join('\n');
}
