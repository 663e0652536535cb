/**
 * `npm run start:cluster`: a local trial of the scaled-out deployment. N server
 * instances on one PostgreSQL (`DATABASE_URL`, or a throwaway one started from
 * the machine's PostgreSQL binaries), each on free ports, behind two round-robin
 * HTTP balancers: the public API on `--port`, the web application on
 * `--web-port`. Prints where they are and how to get a key (never a key: this
 * output carries the instances' logs). Ctrl-C stops everything it started. The balancer is for trying things out; production puts a real
 * load balancer in front (docs/scaling-out.md).
 * Exit codes: 0 stopped by a signal, 1 something failed, 2 bad usage.
 */
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { DEFAULT_MAX_CONNECTIONS } from '../../src/config/env.js';
import { describeExit } from '../process/launch.js';
import { type ServerProcess, startServer } from '../process/server.js';
import { type LocalPostgres, startLocalPostgres } from './local-postgres.js';

const whole = (name: string, min: number, max: number) => (value: string) => {
  const number = Number(value);
  if (!Number.isInteger(number) || number < min || number > max) throw new InvalidArgumentError(`${name} must be a whole number from ${min} to ${max}`);
  return number;
};

const program = new Command('start:cluster')
  .description('N instances of the server on one PostgreSQL, behind a round-robin balancer, for a local trial')
  .option('--instances <n>', 'server instances', whole('--instances', 1, 16), 2)
  .option('--port <n>', "port of the public API's balancer", whole('--port', 1, 65_535), Number(process.env['PORT'] || 3000))
  .option('--web-port <n>', "port of the web application's balancer", whole('--web-port', 1, 65_535), Number(process.env['WEB_PORT'] || 3001))
  .option('--host <address>', 'address of the balancer and the instances', process.env['HOST'] ?? '127.0.0.1')
  .exitOverride()
  .showHelpAfterError('(run with --help for usage)');

const children: ServerProcess[] = [];
let postgres: LocalPostgres | undefined;
const balancers: Server[] = [];
let stopping = false;

function stopAll(code: number): void {
  if (stopping) return;
  stopping = true;
  for (const balancer of balancers) balancer.close();
  // Each instance leads its own process group: SIGTERM to it, SIGKILL after 12 s (it drains for up to 10 s).
  void Promise.all(children.map((instance) => instance.stop({ graceMs: 12_000 }))).then(() => {
    postgres?.stop();
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

async function startInstance(index: number, host: string, databaseUrl: string, publicApiUrl: string): Promise<ServerProcess> {
  // Free ports for each instance's two listeners; the pages show the balancer's URL in their curl.
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
      // Behind the balancer every connection comes from its address: the per-address cap would cap the balancer.
      MAX_CONNECTIONS_PER_ADDRESS: process.env['MAX_CONNECTIONS_PER_ADDRESS'] || process.env['MAX_CONNECTIONS'] || String(DEFAULT_MAX_CONNECTIONS),
    },
    onOutput: labelled(index),
    // Its output is on the terminal already; a little is kept for the message if it does not start.
    maxOutputChars: 1 << 16,
    // The instances migrate one database at once, one after the other behind the advisory lock.
    timeoutMs: 60_000,
  });
  children.push(instance);
  void instance.exited.then((exit) => {
    if (stopping) return;
    process.stderr.write(`instance ${index} exited (${describeExit(exit)}); stopping the cluster\n`);
    stopAll(1);
  });
  return instance;
}

/** Round robin over the instances' URLs, one request at a time each way; enough to watch instances share keys, sessions and a quota. */
function startBalancer(targets: string[], port: number, host: string): Promise<Server> {
  let next = 0;
  const server = createServer((incoming, outgoing) => {
    const target = new URL(targets[next++ % targets.length] ?? '');
    const upstream = httpRequest(
      { host: target.hostname, port: target.port, method: incoming.method, path: incoming.url, headers: incoming.headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    upstream.on('error', () => {
      if (!outgoing.headersSent) outgoing.writeHead(502, { 'content-type': 'text/plain' });
      outgoing.end('instance unreachable\n');
    });
    incoming.pipe(upstream);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
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
  // Started together on purpose: their migrations race, and the advisory lock sorts it out.
  const instances = await Promise.all(Array.from({ length: options.instances }, (_, index) => startInstance(index + 1, options.host, databaseUrl, url)));
  balancers.push(
    await startBalancer(
      instances.map((instance) => instance.url),
      options.port,
      options.host,
    ),
  );
  balancers.push(
    await startBalancer(
      instances.map((instance) => instance.webUrl),
      options.webPort,
      options.host,
    ),
  );
  // No key is printed: this output carries the instances' logs too. A key is made on the web application, or by an operator with the keys CLI.
  process.stdout.write(
    [
      '',
      `Balancer on ${url}, round robin over ${instances.map((instance) => instance.url).join(', ')}`,
      `Web application balancer on ${webUrl}, round robin over ${instances.map((instance) => instance.webUrl).join(', ')}`,
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
