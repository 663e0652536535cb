/**
 * `npm run start:cluster`: a local trial of the scaled-out deployment. N server
 * instances on one PostgreSQL (`DATABASE_URL`, or a throwaway one started from
 * the machine's PostgreSQL binaries), each the built artefact (`dist/`, rebuilt when older than `src/`) on free
 * ports with its ops listener,
 * behind Debian's HAProxy on the configuration the project ships for operators
 * (`deploy/haproxy.cfg`): the public API on `--port`, the web application on
 * `--web-port`, each instance health-checked on `/readyz` and trusting the
 * proxy's `X-Forwarded-For` (`TRUSTED_PROXIES`). An instance that stops is taken
 * out of rotation by HAProxy and the others serve on; the trial stops when none
 * is left. Prints where everything is and how to get a key (never a key: this
 * output carries the instances' logs). Ctrl-C stops everything it started.
 * Exit codes: 0 stopped by a signal, 1 something failed, 2 bad usage.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { DEFAULT_MAX_CONNECTIONS } from '../../src/config/env.js';
import { ensureFreshBuild } from '../build/fresh-build.js';
import { describeExit, type LaunchedProcess } from '../process/launch.js';
import { type ServerProcess, startServer } from '../process/server.js';
import { startHaproxy, type Upstream } from './haproxy.js';
import { type LocalPostgres, startLocalPostgres } from './local-postgres.js';

const whole = (name: string, min: number, max: number) => (value: string) => {
  const number = Number(value);
  if (!Number.isInteger(number) || number < min || number > max) throw new InvalidArgumentError(`${name} must be a whole number from ${min} to ${max}`);
  return number;
};

const program = new Command('start:cluster')
  .description('N instances of the server on one PostgreSQL, behind HAProxy on deploy/haproxy.cfg, for a local trial')
  .option('--instances <n>', 'server instances', whole('--instances', 1, 16), 2)
  .option('--port <n>', "port of HAProxy's public API frontend", whole('--port', 1, 65_535), Number(process.env['PORT'] || 3000))
  .option('--web-port <n>', "port of HAProxy's web application frontend", whole('--web-port', 1, 65_535), Number(process.env['WEB_PORT'] || 3001))
  .option('--host <address>', 'address of HAProxy and the instances', process.env['HOST'] || '127.0.0.1')
  .exitOverride()
  .showHelpAfterError('(run with --help for usage)');

const children: ServerProcess[] = [];
let postgres: LocalPostgres | undefined;
let haproxy: LaunchedProcess | undefined;
const workDirectory = mkdtempSync(join(tmpdir(), 'cluster-'));
let stopping = false;
let running = 0;

function stopAll(code: number): void {
  if (stopping) return;
  stopping = true;
  // HAProxy first: no new request reaches an instance that is stopping.
  void (haproxy?.stop() ?? Promise.resolve())
    // Each instance leads its own process group: SIGTERM to it (it drains: SHUTDOWN_DELAY_SECONDS, then up to
    // SHUTDOWN_GRACE_MS), SIGKILL after 20 s.
    .then(() => Promise.all(children.map((instance) => instance.stop({ graceMs: 20_000 }))))
    .then(() => {
      postgres?.stop();
      rmSync(workDirectory, { recursive: true, force: true });
      process.exit(code);
    });
}

/** Each line of an instance's output on this terminal, after its label. */
function labelled(index: number): (text: string, stream: 'stdout' | 'stderr') => void {
  const label = `[instance ${index}] `;
  const partial = { stdout: '', stderr: '' };
  return (text, stream) => {
    const lines = (partial[stream] + text).split('\n');
    partial[stream] = lines.pop() ?? '';
    for (const line of lines) (stream === 'stdout' ? process.stdout : process.stderr).write(`${label}${line}\n`);
  };
}

/**
 * The address HAProxy connects to the instances from, and the only one they trust for X-Forwarded-For: on loopback a
 * second loopback address (127.0.0.2), so a local client that reaches an instance directly from 127.0.0.1 cannot name
 * another client; elsewhere the host's own address (set TRUSTED_PROXIES to narrow it).
 */
function proxySourceFor(host: string): string | undefined {
  return /^127\./.test(host) ? (host === '127.0.0.2' ? '127.0.0.3' : '127.0.0.2') : undefined;
}

async function startInstance(index: number, host: string, databaseUrl: string, publicApiUrl: string): Promise<ServerProcess & { opsPort: number }> {
  // Free ports for each instance's listeners, each bound by the instance itself (0) and read from its greeting; the
  // pages show HAProxy's URL in their curl.
  const instance = await startServer({
    env: {
      // What this process has, not a harness's defaults (NODE_ENV=production, LOG_LEVEL=info).
      NODE_ENV: process.env['NODE_ENV'],
      LOG_LEVEL: process.env['LOG_LEVEL'],
      DATABASE_URL: databaseUrl,
      PORT: '0',
      WEB_PORT: '0',
      HOST: host,
      PUBLIC_API_URL: publicApiUrl,
      // HAProxy's health check asks /readyz here (deploy/haproxy.cfg).
      OPS_PORT: '0',
      OPS_HOST: host,
      // HAProxy connects from this address and writes the client's in X-Forwarded-For (option forwardfor).
      TRUSTED_PROXIES: process.env['TRUSTED_PROXIES'] || proxySourceFor(host) || host,
      // What this process has, or the server's default: a 5 s drain under NODE_ENV=production, none otherwise.
      SHUTDOWN_DELAY_SECONDS: process.env['SHUTDOWN_DELAY_SECONDS'],
      // Behind HAProxy every connection comes from its address: the per-address cap would cap HAProxy.
      MAX_CONNECTIONS_PER_ADDRESS: process.env['MAX_CONNECTIONS_PER_ADDRESS'] || process.env['MAX_CONNECTIONS'] || String(DEFAULT_MAX_CONNECTIONS),
    },
    onOutput: labelled(index),
    // Its output is on the terminal already; a little is kept for the message if it does not start.
    maxOutputChars: 1 << 16,
    // The instances migrate one database at once, one after the other behind the advisory lock.
    timeoutMs: 60_000,
    // What operators deploy: the artefact, with plain node and the production V8 flags (built first when stale).
    built: true,
  });
  children.push(instance);
  running++;
  void instance.exited.then((exit) => {
    running--;
    if (stopping) return;
    if (running > 0) {
      process.stderr.write(`instance ${index} exited (${describeExit(exit)}); HAProxy takes it out of rotation, ${running} serve on\n`);
      return;
    }
    process.stderr.write(`instance ${index} exited (${describeExit(exit)}), the last one; stopping the cluster\n`);
    stopAll(1);
  });
  if (!instance.opsUrl) throw new Error(`instance ${index} started without its ops listener (OPS_PORT), which HAProxy health-checks`);
  return { ...instance, opsPort: Number(new URL(instance.opsUrl).port) };
}

async function main(): Promise<void> {
  const options = program.parse().opts<{ instances: number; port: number; webPort: number; host: string }>();
  const url = `http://${options.host}:${options.port}`;
  const webUrl = `http://${options.host}:${options.webPort}`;
  let databaseUrl = process.env['DATABASE_URL'];
  if (!databaseUrl) {
    process.stdout.write('DATABASE_URL is not set: starting a throwaway PostgreSQL (removed on exit)\n');
    postgres = await startLocalPostgres({ prefix: 'cluster-pg-' });
    databaseUrl = await postgres.createDatabase('api');
    process.stdout.write(`PostgreSQL on ${databaseUrl}\n`);
  }
  await ensureFreshBuild((line) => process.stdout.write(`${line}\n`));
  // Started together on purpose: their migrations race, and the advisory lock sorts it out.
  const instances = await Promise.all(Array.from({ length: options.instances }, (_, index) => startInstance(index + 1, options.host, databaseUrl, url)));
  const source = proxySourceFor(options.host);
  const upstreams: Upstream[] = instances.map((instance, index) => ({
    name: `instance${index + 1}`,
    host: options.host,
    port: instance.port,
    webPort: Number(new URL(instance.webUrl).port),
    opsPort: instance.opsPort,
    ...(source !== undefined && { source }),
  }));
  haproxy = await startHaproxy({
    upstreams,
    apiBind: `${options.host}:${options.port}`,
    webBind: `${options.host}:${options.webPort}`,
    configFile: join(workDirectory, 'haproxy.cfg'),
    // In the foreground HAProxy says each state change twice, as a warning and as the file's log line (`<1>…`): once is enough here.
    onOutput: (text) => process.stderr.write(text.replace(/^<\d+>.*\n?/gm, '').replace(/^(?=.)/gm, '[haproxy] ')),
  });
  void haproxy.exited.then((exit) => {
    if (stopping) return;
    process.stderr.write(`haproxy exited (${describeExit(exit)}); stopping the cluster\n`);
    stopAll(1);
  });
  // No key is printed: this output carries the instances' logs too. A key is made on the web application, or by an operator with the keys CLI.
  process.stdout.write(
    [
      '',
      `HAProxy (deploy/haproxy.cfg) serves the public API on ${url} and the web application on ${webUrl}, over:`,
      ...instances.map(
        (instance, index) =>
          `  instance ${index + 1}: pid ${instance.pid}, ${instance.url}, web ${instance.webUrl}, /readyz on http://${options.host}:${instance.opsPort}`,
      ),
      `Database: ${databaseUrl.replace(/:[^:@/]*@/, ':***@')}`,
      '',
      `Open ${webUrl} in a browser: create an account, generate an API key, and run the curl command it shows.`,
      `Operators: DATABASE_URL='<the database>' npm run keys -- create --user <name> makes one from the command line.`,
      'Ctrl-C stops the instances and the throwaway database.',
      '',
    ].join('\n'),
  );
}

process.on('SIGINT', () => stopAll(0));
process.on('SIGTERM', () => stopAll(0));
try {
  await main();
} catch (error) {
  if (error instanceof CommanderError) {
    process.exitCode = error.exitCode === 0 ? 0 : 2;
  } else {
    process.stderr.write(`start:cluster: ${error instanceof Error ? error.message : String(error)}\n`);
    stopAll(1);
  }
}
