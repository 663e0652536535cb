/** What the data commands (`backup`, `restore`, `migrate:store`) share, whatever the engine. */

/** Rows per data table, by name: what a backup holds, what a restore or a copy brought. */
export type TableCounts = Record<string, number>;

/** The command cannot do what it was asked without losing data, or its input is not what it needs. Exit code 1. */
export class DataCommandRefused extends Error {
  override name = 'DataCommandRefused';
}
