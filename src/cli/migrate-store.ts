/**
 * `npm run migrate:store -- --from <sqlite file> --to <postgres url> [--force]`: moves a service that began on
 * the embedded SQLite store to PostgreSQL with everything in it (users and their password hashes, key digests
 * and events, items and shares, sessions, counters, generated secrets), so keys and passwords keep working.
 * docs/data.md, "Moving to PostgreSQL".
 */
import { ConfigError, describeDatabase, readStoreConfig } from '../config/env.js';
import { copySqliteToPostgres } from '../store/copy-to-postgres.js';
import { dataProgram, describeCounts, runDataCommand } from './data-command.js';

const program = dataProgram(
  'migrate:store',
  'Copy every table of an SQLite database into a PostgreSQL database, in one transaction, and check the rows on both sides. Stop the servers on the SQLite file first.',
)
  .requiredOption('--from <file>', 'the SQLite database file (DATABASE_PATH of the servers that used it)')
  .requiredOption('--to <url>', 'the PostgreSQL database, postgres://user:password@host:5432/database (DATABASE_URL of the servers to come)')
  .option('--force', 'replace the data the PostgreSQL database holds')
  .action(async (options: { from: string; to: string; force?: boolean }) => {
    // The same checks as the servers' DATABASE_PATH and DATABASE_URL, with the same messages.
    const { databasePath } = readStoreConfig({ DATABASE_PATH: options.from });
    let target: ReturnType<typeof readStoreConfig>;
    try {
      target = readStoreConfig({ DATABASE_URL: options.to });
    } catch (error) {
      throw error instanceof ConfigError ? new ConfigError(error.message.replace(/^DATABASE_URL/, '--to')) : error;
    }
    const counts = await copySqliteToPostgres(databasePath, target.databaseUrl ?? '', { force: options.force ?? false });
    process.stdout.write(
      `Copied ${databasePath} into ${describeDatabase(target)}: ${describeCounts(counts)}. Start the servers with DATABASE_URL set to it.\n`,
    );
  });

await runDataCommand('migrate:store', program);
