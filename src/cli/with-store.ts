/**
 * The database side of the project's CLIs (`keys`, `seed`): the same store the server opens, from
 * the same environment, and the same exit codes for what can go wrong with it.
 */
import { ConfigError, readStoreConfig } from '../config/env.js';
import { openStore } from '../store/open-store.js';
import { UnsafeLocationError, UnwritableLocationError } from '../store/private-files.js';
import { SchemaTooNew } from '../store/schema-policy.js';
import { type Store, StoreUnavailable } from '../store/store.js';
import { CommandFailed, UsageError } from './exit.js';

/** Opens the store `env` configures (DATABASE_URL, else DATABASE_PATH), runs `work`, and closes it. */
export async function withStore<T>(env: NodeJS.ProcessEnv, work: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore(readStoreConfig(env));
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

/** A bad or unsafe DATABASE_PATH (or DATABASE_URL), or a database too new for this code, is bad usage of the command; an unreachable database is a failure. */
export function asCliError(error: unknown): unknown {
  if (error instanceof ConfigError || error instanceof UnsafeLocationError || error instanceof UnwritableLocationError || error instanceof SchemaTooNew)
    return new UsageError(error.message);
  return error instanceof StoreUnavailable ? new CommandFailed(error.message) : error;
}
