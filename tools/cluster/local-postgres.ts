import { chownSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { execaSync } from 'execa';
import { portToBindLater } from '../../src/cli/port-to-bind-later.js';
import { postgresBinDir } from '../../src/store/postgres-binaries.js';

/** A throwaway PostgreSQL server from the machine's own binaries (Debian's `postgresql` package): no Docker. */
export interface LocalPostgres {
  /** Superuser URL of the `postgres` database, on 127.0.0.1. */
  url: string;
  port: number;
  /** The postmaster's process id (for the record: `stop()` and the exit hook use `pg_ctl`). */
  pid(): number | undefined;
  /** The postmaster and every process it started (backends, background workers): what the database costs in CPU. */
  pids(): number[];
  /** A URL for another database on the same server. */
  urlFor(database: string): string;
  /** Creates an empty database and returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** `pg_ctl stop -m immediate`: the database goes away at once, as a crash or a network cut would look to clients. */
  kill(): void;
  /** Starts the same cluster again on the same port after `kill()`. */
  restart(): void;
  /** Stops the server (fast shutdown) and removes its directory; safe to call twice. */
  stop(): void;
  /** The server's log so far. */
  log(): string;
}

export interface LocalPostgresOptions {
  /** Directory prefix under the system's temp directory. */
  prefix?: string;
  /** Extra `-c name=value` settings. Tests turn durability off; a benchmark may keep it. */
  settings?: Record<string, string>;
  /** Command line put before `pg_ctl start`, e.g. `['taskset', '-c', '1']`: the server and every backend inherit it. */
  startPrefix?: string[];
  /**
   * Also stop the server when this process gets SIGINT, SIGTERM or SIGHUP (exit hooks do not run when a
   * signal ends a process), then end the process as the signal would have. For callers without their own handlers.
   */
  stopOnSignals?: boolean;
}

/** Settings for a scratch cluster whose data does not need to survive a crash: faster commits. */
export const SCRATCH_SETTINGS: Readonly<Record<string, string>> = { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' };

const RUN_AS = 'postgres';
/** Starts tried, each on a newly picked port, when another process took the port between the pick and the bind. */
const START_ATTEMPTS = 3;
const SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/** Where `initdb` and `pg_ctl` are: the product's own finder, which `npm run backup` uses for `pg_dump`. */
export { postgresBinDir };

function idsOf(user: string): { uid: number; gid: number } | undefined {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith(`${user}:`));
  if (!line) return undefined;
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

/**
 * `initdb` into a fresh temporary directory and `pg_ctl start` on a free
 * loopback port, with the socket in that directory too. PostgreSQL refuses to
 * run as root, so as root both run as the `postgres` user (which Debian's
 * package creates) through `runuser`. An exit hook stops the server if the
 * caller never does.
 */
export async function startLocalPostgres(options: LocalPostgresOptions = {}): Promise<LocalPostgres> {
  const bin = postgresBinDir();
  if (!bin)
    throw new Error(
      'PostgreSQL server binaries not found: install them (Debian: apt-get install -y postgresql) or set PG_BIN to the directory holding initdb and pg_ctl',
    );
  const asRoot = userInfo().uid === 0;
  const owner = asRoot ? idsOf(RUN_AS) : undefined;
  if (asRoot && !owner)
    throw new Error(`running as root, PostgreSQL must run as another user, and there is no "${RUN_AS}" user (Debian's postgresql package creates it)`);
  const dir = mkdtempSync(join(tmpdir(), options.prefix ?? 'pg-'));
  const data = join(dir, 'data');
  const sockets = join(dir, 'sockets');
  mkdirSync(sockets);
  if (owner) {
    chownSync(dir, owner.uid, owner.gid);
    chownSync(sockets, owner.uid, owner.gid);
  }
  // Synchronous (execa's execaSync), so the exit hook below can stop the server too.
  const run = (tool: string, args: string[], quiet = false, prefix: string[] = []): void => {
    const [command = '', ...rest] = [...prefix, ...(asRoot ? ['runuser', '-u', RUN_AS, '--', join(bin, tool), ...args] : [join(bin, tool), ...args])];
    const result = execaSync(command, rest, { cwd: dir, timeout: 60_000, reject: false });
    if (result.exitCode !== 0 && !quiet)
      throw new Error(`${tool} ${args.join(' ')} failed (${result.exitCode ?? result.signal}): ${result.stderr || result.stdout}`);
  };
  // Picked once initdb is done, and picked again if another process binds it first.
  let port = 0;
  const settings = () => ({ listen_addresses: '127.0.0.1', port: String(port), unix_socket_directories: sockets, max_connections: '200', ...options.settings });
  const logFile = join(dir, 'server.log');
  const readLog = (): string => {
    try {
      return readFileSync(logFile, 'utf8');
    } catch {
      return '';
    }
  };
  const start = () =>
    run('pg_ctl', [
      'start',
      '-D',
      data,
      '-l',
      logFile,
      '-w',
      '-t',
      '60',
      '-o',
      Object.entries(settings())
        .map(([name, value]) => `-c ${name}=${value}`)
        .join(' '),
    ]);
  let running = false;
  const stopServer = (mode: 'fast' | 'immediate') => {
    if (!running) return;
    running = false;
    run('pg_ctl', ['stop', '-D', data, '-m', mode, '-w', '-t', '30'], true);
  };
  let removed = false;
  const stop = () => {
    stopServer('fast');
    if (!removed) {
      removed = true;
      rmSync(dir, { recursive: true, force: true });
    }
    process.off('exit', onExit);
    for (const signal of SIGNALS) process.off(signal, onSignal);
  };
  const onExit = () => {
    stopServer('immediate');
    if (!removed) rmSync(dir, { recursive: true, force: true });
  };
  const onSignal = (signal: NodeJS.Signals) => {
    stop();
    process.kill(process.pid, signal);
  };
  process.on('exit', onExit);
  if (options.stopOnSignals) for (const signal of SIGNALS) process.once(signal, onSignal);
  try {
    run('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync', '--no-instructions']);
    for (let attempt = 1; ; attempt++) {
      port = await portToBindLater();
      try {
        start();
        break;
      } catch (error) {
        if (attempt === START_ATTEMPTS || !/could not bind|Address already in use/i.test(readLog())) throw error;
      }
    }
    running = true;
  } catch (error) {
    stop();
    throw error;
  }
  const urlFor = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  const pid = () => {
    try {
      return Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    } catch {
      return undefined;
    }
  };
  return {
    url: urlFor('postgres'),
    port,
    pid,
    pids() {
      const postmaster = pid();
      if (postmaster === undefined) return [];
      const children = readdirSync('/proc').filter((entry) => {
        if (!/^\d+$/.test(entry)) return false;
        try {
          const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
          return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster;
        } catch {
          return false;
        }
      });
      return [postmaster, ...children.map(Number)];
    },
    urlFor,
    async createDatabase(name) {
      const { default: pg } = await import('pg');
      const client = new pg.Client({ connectionString: urlFor('postgres') });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE "${name.replaceAll('"', '')}"`);
      } finally {
        await client.end();
      }
      return urlFor(name);
    },
    kill: () => stopServer('immediate'),
    restart() {
      if (running) return;
      start();
      running = true;
    },
    stop,
    log: readLog,
  };
}
