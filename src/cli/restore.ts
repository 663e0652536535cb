/**
 * `npm run restore -- --from FILE [--force]`: a backup made by `npm run backup` into the configured database
 * (DATABASE_URL, else DATABASE_PATH), which must hold no data unless `--force`. Stop the servers first.
 * docs/data.md, "Backups".
 */
import { restorePostgres } from '../store/postgres-backup.js';
import { restoreSqlite } from '../store/sqlite-backup.js';
import { runFileCommand } from './data-command.js';

await runFileCommand({
  name: 'restore',
  description: 'Restore a backup made by npm run backup into the database (DATABASE_URL if set, else DATABASE_PATH). Stop the servers on it first.',
  file: { option: '--from', description: 'the backup file' },
  force: 'replace the data the database holds',
  postgres: restorePostgres,
  // restoreSqlite reads the file into the database: its arguments are (from, to).
  sqlite: (databasePath, file, options) => restoreSqlite(file, databasePath, options),
  done: (database, file) => `Restored ${file} into ${database}`,
});
