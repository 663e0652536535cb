/**
 * `npm run backup -- --out FILE`: a consistent copy of the configured database (DATABASE_URL, else
 * DATABASE_PATH), taken while servers run: SQLite's online backup API, or `pg_dump --format=custom`.
 * docs/data.md, "Backups".
 */
import { backupPostgres } from '../store/postgres-backup.js';
import { backupSqlite } from '../store/sqlite-backup.js';
import { runFileCommand } from './data-command.js';

await runFileCommand({
  name: 'backup',
  description:
    'Copy the database (DATABASE_URL if set, else DATABASE_PATH, as for the server) into a new file, consistently, while servers write to it. Restore it with npm run restore.',
  file: { option: '--out', description: 'the backup file to write (SQLite: a database file; PostgreSQL: a pg_dump archive)' },
  force: 'replace --out if it exists',
  postgres: backupPostgres,
  sqlite: backupSqlite,
  done: (database, file) => `Backed up ${database} to ${file}`,
});
