/**
 * `npm run backup -- --out FILE`: a consistent copy of the configured database (DATABASE_URL, else
 * DATABASE_PATH), taken while servers run: SQLite's online backup API, or `pg_dump --format=custom`.
 * docs/data.md, "Backups".
 */
import { describeDatabase, readStoreConfig } from '../config/env.js';
import { backupPostgres } from '../store/postgres-backup.js';
import { backupSqlite } from '../store/sqlite-backup.js';
import { callerPath, dataProgram, describeCounts, runDataCommand } from './data-command.js';

const program = dataProgram(
  'backup',
  'Copy the database (DATABASE_URL if set, else DATABASE_PATH, as for the server) into a new file, consistently, while servers write to it. Restore it with npm run restore.',
)
  .requiredOption('--out <file>', 'the backup file to write (SQLite: a database file; PostgreSQL: a pg_dump archive)')
  .option('--force', 'replace --out if it exists')
  .action(async (options: { out: string; force?: boolean }) => {
    const config = readStoreConfig(process.env);
    const file = callerPath(options.out);
    const counts = config.databaseUrl
      ? await backupPostgres(config.databaseUrl, file, { force: options.force ?? false })
      : await backupSqlite(config.databasePath, file, { force: options.force ?? false });
    process.stdout.write(`Backed up ${describeDatabase(config)} to ${file}: ${describeCounts(counts)}.\n`);
  });

await runDataCommand('backup', program);
