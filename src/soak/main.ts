/**
 * `npm run soak`: drives the server on loopback with a mix of valid and invalid
 * requests for a bounded time (autocannon), checks every answer against the
 * spec, and reports requests, answers by status, socket errors, latency and the
 * server's RSS at start and end. Either targets a running server (`--url` and
 * `--token`, `--pid` for its RSS) or starts one on a temporary database with a
 * fresh key. Exit codes: 0 nothing wrong, 1 a 5xx, a socket error, a contract
 * violation or an unclean server exit, 2 bad usage.
 */
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { createKeyWithCli, startServer, tempDatabase, type ServerProcess } from './server-process.js';
import { formatReport, runSoak, type SoakReport } from './soak.js';

interface CliOptions {
  url?: string;
  token?: string;
  pid?: number;
  duration: number;
  connections: number;
  user: string;
  json?: boolean;
}

class UsageError extends Error {}

const positiveInteger = (name: string) => (value: string) => {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) throw new InvalidArgumentError(`${name} must be a whole number of at least 1`);
  return number;
};

const program = new Command('soak')
  .description('Soak-test the API on loopback with a mix of valid and invalid requests, and report.')
  .option('--url <url>', 'root URL of a running server (default: start one on a temporary database)')
  .option('--token <key>', 'API key for --url')
  .option('--pid <pid>', 'pid of the server at --url, to report its RSS', positiveInteger('--pid'))
  .option('--duration <seconds>', 'how long to drive it', positiveInteger('--duration'), 60)
  .option('--connections <n>', 'concurrent connections', positiveInteger('--connections'), 16)
  .option('--user <name>', "whose fresh key to use when the soak starts the server (the demo user's seeded items make real pages)", 'demo')
  .option('--json', 'print the report as JSON')
  .exitOverride()
  .showHelpAfterError('(run with --help for usage)')
  .configureOutput({ writeErr: (text) => process.stderr.write(text) });

async function main(options: CliOptions): Promise<number> {
  if ((options.url === undefined) !== (options.token === undefined)) throw new UsageError('--url and --token go together: both to target a running server, neither to start one');
  if (options.pid !== undefined && options.url === undefined) throw new UsageError('--pid only applies with --url; a server the soak starts is measured anyway');
  const progress = options.json ? undefined : (seconds: number, requests: number) => {
    if (Math.round(seconds) % 10 === 0) process.stderr.write(`  ${Math.round(seconds)} s: ${requests} answers\n`);
  };

  if (options.url !== undefined && options.token !== undefined) {
    const report = await runSoak({ url: options.url, token: options.token, durationSeconds: options.duration, connections: options.connections, ...(options.pid !== undefined && { pid: options.pid }), ...(progress && { onProgress: progress }) });
    print(report, options.json);
    return report.ok ? 0 : 1;
  }

  const database = tempDatabase('soak-');
  let server: ServerProcess | undefined;
  try {
    // The first start seeds the demo data; the key is then made as an operator would, with the keys CLI.
    server = await startServer({ databasePath: database.path, env: { RATE_LIMIT_REQUESTS: '1000000000', LOG_LEVEL: 'info' }, maxOutputChars: 1 << 20 });
    const { key } = await createKeyWithCli(database.path, options.user);
    if (!options.json) process.stderr.write(`soak: started ${server.url} (pid ${server.pid}) on ${database.path}; driving it for ${options.duration} s\n`);
    const report = await runSoak({ url: server.url, token: key, durationSeconds: options.duration, connections: options.connections, pid: server.pid, ...(progress && { onProgress: progress }) });
    const exit = await server.stop('SIGTERM');
    const stderr = server.stderr().trim();
    const serverExit = { code: exit.code, signal: exit.signal, stderr: stderr.slice(0, 2000) };
    const clean = exit.code === 0 && stderr === '';
    print({ ...report, ok: report.ok && clean, serverExit }, options.json);
    return report.ok && clean ? 0 : 1;
  } finally {
    await server?.stop('SIGKILL');
    database.remove();
  }
}

function print(report: SoakReport & { serverExit?: { code: number | null; signal: string | null; stderr: string } }, json = false): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    return;
  }
  let text = formatReport(report);
  if (report.serverExit) {
    text += `\n  server exit     code ${report.serverExit.code}${report.serverExit.signal ? `, signal ${report.serverExit.signal}` : ''}${report.serverExit.stderr ? `, stderr: ${report.serverExit.stderr}` : ''}`;
  }
  process.stdout.write(`${text}\n`);
}

try {
  program.parse();
  process.exitCode = await main(program.opts<CliOptions>());
} catch (error) {
  if (error instanceof CommanderError) {
    process.exitCode = error.exitCode === 0 ? 0 : 2;
  } else if (error instanceof UsageError) {
    process.stderr.write(`soak: ${error.message}\n`);
    process.exitCode = 2;
  } else {
    process.stderr.write(`soak: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  }
}
