/**
 * `DATABASE_URL=postgres://… npm run migrate:store -- --from <sqlite file> [--force]`: moves a service that began on
 * the embedded SQLite store to PostgreSQL with everything in it (users and their password hashes, key digests
 * and events, items and shares, sessions, counters, generated secrets), so keys and passwords keep working.
 * docs/data.md, "Moving to PostgreSQL".
 */

import { readDatabaseUrl } from '../config/database-secret.js';
import { passwordOf } from '../config/database-url.js';
import { ConfigError, describeDatabase, readStoreConfig } from '../config/env.js';
import { copySqliteToPostgres } from '../store/copy-to-postgres.js';
import { callerPath, dataProgram, describeCounts, runDataCommand } from './data-command.js';

const program = dataProgram(
  'migrate:store',
  'Copy every table of an SQLite database into a PostgreSQL database, in one transaction, and check the rows on both sides. Stop the servers on the SQLite file first.',
)
  .requiredOption('--from <file>', 'the SQLite database file (DATABASE_PATH of the servers that used it)')
  .option(
    '--to <url>',
    'the PostgreSQL database, without a password (default: DATABASE_URL, the servers-to-come setting, which is where a password goes: a command line is visible to every user of the machine)',
  )
  .option('--force', 'replace the data the PostgreSQL database holds')
  .action(async (options: { from: string; to?: string; force?: boolean }) => {
    // The same checks as the servers' DATABASE_PATH and DATABASE_URL, with the same messages.
    // From the folder the operator ran npm in, as backup and restore read their files (not the install folder).
    const { databasePath } = readStoreConfig({ DATABASE_PATH: callerPath(options.from) });
    const [name, url] = options.to === undefined ? ['DATABASE_URL', readDatabaseUrl(process.env)] : ['--to', options.to];
    if (!url)
      throw new ConfigError(
        'give the PostgreSQL database in DATABASE_URL or DATABASE_URL_FILE (postgres://user:password@host:5432/database), as the servers will have it',
      );
    if (options.to !== undefined && hasPassword(options.to))
      throw new ConfigError(
        '--to holds a password, which every user of this machine can read on the command line: set DATABASE_URL instead and leave --to out',
      );
    let target: ReturnType<typeof readStoreConfig>;
    try {
      target = readStoreConfig({ DATABASE_URL: url });
    } catch (error) {
      throw error instanceof ConfigError ? new ConfigError(error.message.replace(/^DATABASE_URL/, name)) : error;
    }
    const counts = await copySqliteToPostgres(databasePath, target.databaseUrl ?? '', { force: options.force ?? false });
    process.stdout.write(
      `Copied ${databasePath} into ${describeDatabase(target)}: ${describeCounts(counts)}. Start the servers with DATABASE_URL set to it.\n`,
    );
  });

/** Whether a connection URL carries a password, in its user part or as a `password` parameter. */
function hasPassword(url: string): boolean {
  try {
    return passwordOf(new URL(url)) !== '';
  } catch {
    // Not a URL: the DATABASE_URL check says what is wrong with it.
    return false;
  }
}

await runDataCommand('migrate:store', program);
