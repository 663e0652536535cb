/**
 * PostgreSQL's own programs (`pg_dump`, `pg_restore`, `initdb`, `pg_ctl`), which Debian keeps off the PATH, and
 * a way to run one as a thin wrapper: arguments as given, its stderr in the error when it fails.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { passwordOf, withoutPassword } from '../config/database-url.js';

/**
 * The folder holding PostgreSQL's programs: `PG_BIN` if set, else the newest `/usr/lib/postgresql/<version>/bin`
 * (Debian), else `pg_config --bindir`; undefined when none is found.
 */
export function postgresBinDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const fromEnv = env['PG_BIN'];
  if (fromEnv) return fromEnv;
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((name) => existsSync(join(root, name, 'bin', 'initdb')) || existsSync(join(root, name, 'bin', 'pg_dump')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0] !== undefined) return join(root, versions[0], 'bin');
  }
  try {
    const bindir = execFileSync('pg_config', ['--bindir'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return existsSync(join(bindir, 'pg_dump')) || existsSync(join(bindir, 'initdb')) ? bindir : undefined;
  } catch {
    return undefined;
  }
}

/** A PostgreSQL program was not found, or ended with an error; its message says which and why, never a password. */
export class PostgresToolFailed extends Error {
  override name = 'PostgresToolFailed';
}

/**
 * Runs one of PostgreSQL's programs against `url`: the password travels in `PGPASSWORD`, never on the command
 * line (where `ps` shows it); the URL without it is passed as `--dbname`. Resolves once it exits 0.
 */
export async function runPostgresTool(
  tool: 'pg_dump' | 'pg_restore',
  url: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  const bin = postgresBinDir(env);
  const program = bin ? join(bin, tool) : tool;
  if (bin && !existsSync(program))
    throw new PostgresToolFailed(`${tool} is not in ${bin}: install PostgreSQL's client programs (Debian: apt-get install -y postgresql-client) or set PG_BIN`);
  const parsed = new URL(url);
  // Wherever the URL carries it: to PGPASSWORD, never onto the command line.
  const password = passwordOf(parsed);
  const childEnv = { ...env, ...(password !== '' && { PGPASSWORD: password }) };
  await new Promise<void>((resolve, reject) => {
    const child = spawn(program, [...args, `--dbname=${withoutPassword(parsed).toString()}`], { env: childEnv, stdio: ['ignore', 'inherit', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr = (stderr + text).slice(-4_000);
    });
    child.on('error', (error: NodeJS.ErrnoException) =>
      reject(
        new PostgresToolFailed(
          error.code === 'ENOENT'
            ? `${tool} not found: install PostgreSQL's client programs (Debian: apt-get install -y postgresql-client) or set PG_BIN to their folder`
            : `${tool} could not start: ${error.message}`,
        ),
      ),
    );
    child.on('close', (code, signal) => {
      if (code === 0) resolve();
      else reject(new PostgresToolFailed(`${tool} failed (${code === null ? `signal ${signal}` : `exit code ${code}`}): ${stderr.trim()}`));
    });
  });
}
