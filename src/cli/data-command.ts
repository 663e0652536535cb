/**
 * What the data commands (`backup`, `restore`, `migrate:store`) share: one commander program each, run with the
 * project's exit codes (0 done, 1 refused or failed, 2 bad usage), and their summary of the rows they moved;
 * `backup` and `restore` the whole frame (`runFileCommand`).
 */
import { resolve } from 'node:path';
import { Command } from 'commander';
import { describeDatabase, readStoreConfig } from '../config/env.js';
import { DataCommandRefused, type TableCounts } from '../store/data-commands.js';
import { PostgresToolFailed } from '../store/postgres-binaries.js';
import { CommandFailed, runCli } from './exit.js';
import { refuseOptionsAsValues } from './option-values.js';
import { asCliError } from './with-store.js';

/** `3 users, 5 api_keys, …`: the rows in each data table. */
export function describeCounts(counts: TableCounts): string {
  const entries = Object.entries(counts);
  return entries.length === 0 ? 'no tables' : entries.map(([table, rows]) => `${rows} ${table}`).join(', ');
}

/**
 * A file named on the command line, from the folder the operator ran `npm run` in (`INIT_CWD`): npm runs the
 * script itself from the project's root, where a relative `--out backup.sqlite` would otherwise land.
 */
export function callerPath(file: string): string {
  return resolve(process.env['INIT_CWD'] ?? process.cwd(), file);
}

/** A program with the project's conventions: errors come back to `runDataCommand` rather than ending the process. */
export function dataProgram(name: string, description: string): Command {
  return new Command(name)
    .description(description)
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({ writeErr: (text) => process.stderr.write(text) });
}

/** Parses the process's arguments and runs the program's action, setting the exit code. */
export async function runDataCommand(name: string, program: Command): Promise<void> {
  refuseOptionsAsValues(program);
  await runCli(name, async () => {
    try {
      await program.parseAsync();
    } catch (error) {
      if (error instanceof DataCommandRefused || error instanceof PostgresToolFailed) throw new CommandFailed(error.message);
      // better-sqlite3's errors (a file that is not a database, a full disk) are one line, not a stack.
      if (error instanceof Error && error.name === 'SqliteError') throw new CommandFailed(`SQLite: ${error.message}`);
      throw asCliError(error);
    }
  });
}

/** A command between one file and the configured database (DATABASE_URL, else DATABASE_PATH): `backup`, `restore`. */
export interface FileCommand {
  name: string;
  description: string;
  /** The file's option (`--out`, `--from`) and what it is. */
  file: { option: '--out' | '--from'; description: string };
  /** What `--force` allows. */
  force: string;
  /** The work, on whichever engine the configuration names; resolves with the rows in each table. */
  postgres(databaseUrl: string, file: string, options: { force: boolean }): Promise<TableCounts>;
  sqlite(databasePath: string, file: string, options: { force: boolean }): Promise<TableCounts>;
  /** The line said when it is done, e.g. `Backed up <database> to <file>`; the counts follow it. */
  done(database: string, file: string): string;
}

/** Runs a {@link FileCommand} on the process's arguments and environment, with the data commands' exit codes. */
export async function runFileCommand(command: FileCommand): Promise<void> {
  const key = command.file.option.slice(2);
  const program = dataProgram(command.name, command.description)
    .requiredOption(`${command.file.option} <file>`, command.file.description)
    .option('--force', command.force)
    .action(async (options: Record<string, string | boolean | undefined>) => {
      const config = readStoreConfig(process.env);
      const file = callerPath(String(options[key]));
      const force = { force: options['force'] === true };
      const counts = config.databaseUrl ? await command.postgres(config.databaseUrl, file, force) : await command.sqlite(config.databasePath, file, force);
      process.stdout.write(`${command.done(describeDatabase(config), file)}: ${describeCounts(counts)}.\n`);
    });
  await runDataCommand(command.name, program);
}
