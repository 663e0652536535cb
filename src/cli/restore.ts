/**
 * `npm run restore -- --from FILE [--force]`: a backup made by `npm run backup` into the configured database
 * (DATABASE_URL, else DATABASE_PATH), which must hold no data unless `--force`. Stop the servers first.
 * docs/data.md, "Backups".
 */
import { describeDatabase, readStoreConfig } from '../config/env.js';
import { restorePostgres } from '../store/postgres-backup.js';
import { restoreSqlite } from '../store/sqlite-backup.js';
import { callerPath, dataProgram, describeCounts, runDataCommand } from './data-command.js';

const program = dataProgram(
  'restore',
  'Restore a backup made by npm run backup into the database (DATABASE_URL if set, else DATABASE_PATH). Stop the servers on it first.',
)
  .requiredOption('--from <file>', 'the backup file')
  .option('--force', 'replace the data the database holds')
  .action(async (options: { from: string; force?: boolean }) => {
    const config = readStoreConfig(process.env);
    const file = callerPath(options.from);
    const counts = config.databaseUrl
      ? await restorePostgres(config.databaseUrl, file, { force: options.force ?? false })
      : await restoreSqlite(file, config.databasePath, { force: options.force ?? false });
    process.stdout.write(`Restored ${file} into ${describeDatabase(config)}: ${describeCounts(counts)}.\n`);
  });

await runDataCommand('restore', program);
