/**
 * `npm run soak`: drives the server on loopback with a mix of valid and invalid
 * requests for a bounded time (autocannon), checks every answer against the
 * spec, and reports requests, answers by status, socket errors, latency and the
 * server's RSS at start and end. Either targets a running server (`--url` and
 * `--token`, `--pid` for its RSS) or starts one on a temporary database with a
 * fresh key. Exit codes: 0 nothing wrong, 1 a 5xx, a socket error, a contract
 * violation or an unclean server exit, 2 bad usage.
 *
 * `--attack` runs the combined attack of issue 20 instead (tools/soak/attack.ts): made-up keys from many
 * client addresses, password guesses and sign-ups, all at once, while a legitimate user's key must be
 * served in every second and its sign-ins succeed; exit 1 if not, or on any 5xx. Its /64 spread (tools/soak/spread.ts)
 * needs a hop the target trusts as its proxy: a server the soak starts trusts 127.0.3.1; a running one is given
 * `--proxy-url`, `--proxy-web-url` and `--proxy-address`, and without them the soak says the spread was not run.
 */
import { ExitCode, runCli } from '../../src/cli/exit.js';
import { seedDemoDatabase } from '../../src/store/demo-data.js';
import { makeKey } from '../process/make-key.js';
import { scratchDatabase } from '../process/scratch-database.js';
import { type ServerProcess, startServer, stderrBeyondGreeting } from '../process/server.js';
import { ATTACK_ADDRESSES, ATTACK_TABLE_HEADER, type AttackOptions, type AttackReport, formatAttackReport, formatAttackSecond, runAttack } from './attack.js';
import { parseSoakArgs, type SoakOptions } from './options.js';
import { formatReport, runSoak, type SoakReport } from './soak.js';

/**
 * The legitimate client asks with its key every 75 ms, about 800 times a minute: more than a key's own quota
 * (`x-limits.rateLimit`, which only that key's requests spend). A server the soak starts gets a quota that allows
 * it, so what is measured is what others' traffic does to the key; every limit the attack meets is the default.
 */
const ATTACK_KEY_QUOTA = '100000';

/**
 * Where the /64 spread goes against a running server: the hop given, or, without one, why it is not run (said on the
 * terminal before the run too, never left out silently).
 */
function spreadAgainstRunning(options: SoakOptions): NonNullable<AttackOptions['spread']> {
  if (options.proxyUrl !== undefined && options.proxyWebUrl !== undefined && options.proxyAddress !== undefined)
    return { url: options.proxyUrl, webUrl: options.proxyWebUrl, proxyAddress: options.proxyAddress };
  const notRun =
    "the soak does not know which local address --url's server trusts as its proxy (TRUSTED_PROXIES), and loopback has no IPv6 /64 to send from; " +
    "give --proxy-url, --proxy-web-url and --proxy-address (for npm run start:cluster: one instance's URLs, from 127.0.0.2)";
  if (!options.json) process.stderr.write(`soak --attack: the /64 spread is not run: ${notRun}\n`);
  return { notRun };
}

async function attack(options: SoakOptions): Promise<ExitCode> {
  const run = async (url: string, webUrl: string, spread: AttackOptions['spread']): Promise<AttackReport> => {
    if (!options.json) process.stderr.write(`${ATTACK_TABLE_HEADER}\n`);
    return runAttack({
      url,
      webUrl,
      durationSeconds: options.duration,
      connections: options.connections,
      ...(spread && { spread }),
      ...(!options.json && { onSecond: (row) => process.stderr.write(`${formatAttackSecond(row)}\n`) }),
    });
  };
  if (options.url !== undefined && options.webUrl !== undefined) {
    const report = await run(options.url, options.webUrl, spreadAgainstRunning(options));
    printAttack(report, options.json);
    return report.ok ? ExitCode.ok : ExitCode.failed;
  }
  const database = scratchDatabase('soak-attack-');
  let server: ServerProcess | undefined;
  try {
    server = await startServer({
      databasePath: database.path,
      // The /64 spread's hop, the only proxy trusted: every other part's peer is not, so its address is the client.
      env: { RATE_LIMIT_REQUESTS: ATTACK_KEY_QUOTA, LOG_LEVEL: 'info', TRUSTED_PROXIES: ATTACK_ADDRESSES.proxy, FORWARDED_HEADER: 'x-forwarded-for' },
      maxOutputChars: 1 << 20,
    });
    if (!options.json)
      process.stderr.write(
        `soak --attack: started ${server.url} and ${server.webUrl} (pid ${server.pid}) on ${database.path}; attacking it for ${options.duration} s\n`,
      );
    const report = await run(server.url, server.webUrl, { url: server.url, webUrl: server.webUrl, proxyAddress: ATTACK_ADDRESSES.proxy });
    const exit = await server.stop({ signal: 'SIGTERM', graceMs: 15_000 });
    const stderr = stderrBeyondGreeting(server.stderr()).trim();
    const clean = exit.code === 0 && stderr === '';
    printAttack({ ...report, ok: report.ok && clean, serverExit: { code: exit.code, signal: exit.signal, stderr: stderr.slice(0, 2000) } }, options.json);
    return report.ok && clean ? ExitCode.ok : ExitCode.failed;
  } finally {
    await server?.stop({ signal: 'SIGKILL' });
    database.remove();
  }
}

function printAttack(report: AttackReport & { serverExit?: { code: number | null; signal: string | null; stderr: string } }, json = false): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    return;
  }
  let text = formatAttackReport(report);
  if (report.serverExit) {
    text += `\n  server exit     code ${report.serverExit.code}${report.serverExit.signal ? `, signal ${report.serverExit.signal}` : ''}${report.serverExit.stderr ? `, stderr: ${report.serverExit.stderr}` : ''}`;
  }
  process.stdout.write(`${text}\n`);
}

async function main(options: SoakOptions): Promise<ExitCode> {
  if (options.attack) return attack(options);
  const progress = options.json
    ? undefined
    : (seconds: number, requests: number) => {
        if (Math.round(seconds) % 10 === 0) process.stderr.write(`  ${Math.round(seconds)} s: ${requests} answers\n`);
      };

  if (options.url !== undefined && options.token !== undefined) {
    const report = await runSoak({
      url: options.url,
      token: options.token,
      durationSeconds: options.duration,
      connections: options.connections,
      slowClients: options.slowClients,
      ...(options.pid !== undefined && { pid: options.pid }),
      ...(progress && { onProgress: progress }),
    });
    print(report, options.json);
    return report.ok ? ExitCode.ok : ExitCode.failed;
  }

  const database = scratchDatabase('soak-');
  let server: ServerProcess | undefined;
  try {
    // The demo data (as `npm run seed` adds it) gives real pages; the key is made as an operator would, with the keys CLI.
    await seedDemoDatabase({ databasePath: database.path });
    server = await startServer({
      databasePath: database.path,
      env: { RATE_LIMIT_REQUESTS: '1000000000', FAILED_AUTH_PER_ADDRESS: '1000000000', LOG_LEVEL: 'info' },
      maxOutputChars: 1 << 20,
    });
    const { key } = await makeKey(database.path, options.user);
    if (!options.json) process.stderr.write(`soak: started ${server.url} (pid ${server.pid}) on ${database.path}; driving it for ${options.duration} s\n`);
    const report = await runSoak({
      url: server.url,
      token: key,
      durationSeconds: options.duration,
      connections: options.connections,
      slowClients: options.slowClients,
      pid: server.pid,
      ...(progress && { onProgress: progress }),
    });
    const exit = await server.stop({ signal: 'SIGTERM', graceMs: 15_000 });
    const stderr = stderrBeyondGreeting(server.stderr()).trim();
    const serverExit = { code: exit.code, signal: exit.signal, stderr: stderr.slice(0, 2000) };
    const clean = exit.code === 0 && stderr === '';
    print({ ...report, ok: report.ok && clean, serverExit }, options.json);
    return report.ok && clean ? ExitCode.ok : ExitCode.failed;
  } finally {
    await server?.stop({ signal: 'SIGKILL' });
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

await runCli('soak', () => main(parseSoakArgs(process.argv.slice(2))));
