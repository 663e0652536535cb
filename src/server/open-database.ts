import type { Logger } from 'pino';
import { describeDatabase, type ServerConfig } from '../config/env.js';
import type { Tracing } from '../ops/tracing.js';
import { openStore } from '../store/open-store.js';
import { connectionRefusedByConfiguration } from '../store/postgres-store.js';
import { UnsafeLocationError, UnwritableLocationError } from '../store/private-files.js';
import { SchemaTooNew } from '../store/schema-policy.js';
import { type Store, StoreUnavailable } from '../store/store.js';
import { StartFailure } from './start-failure.js';

/** How long a starting instance waits for its database (several starting with it, or a database still booting). */
const STARTUP_WAIT_MS = 30_000;

export interface OpenDatabaseOptions {
  logger: Logger;
  /** Writes the log now: what an operator looks for during an outage is not left in the buffer. */
  flushLogs(): void;
  tracing: Tracing | undefined;
}

/**
 * Opens (and migrates) the configured database, waiting for it with growing pauses while it is away, up to
 * `STARTUP_WAIT_MS`. A `StartFailure` says why it cannot: exit 2 where the configuration is at fault (an unsafe or
 * unwritable file, a schema newer than this code, PostgreSQL refusing the credentials), 1 when it stayed away.
 */
export async function openDatabase(config: ServerConfig, options: OpenDatabaseOptions): Promise<Store> {
  const { logger, flushLogs } = options;
  const database = describeDatabase(config);
  try {
    return await openWithRetry(config, database, options);
  } catch (error) {
    const refusal =
      error instanceof UnsafeLocationError || error instanceof UnwritableLocationError || error instanceof SchemaTooNew
        ? error.message
        : config.databaseUrl
          ? connectionRefusedByConfiguration(error, config.databaseUrl)
          : undefined;
    if (refusal !== undefined) {
      logger.fatal({ database, reason: refusal }, 'configuration error');
      flushLogs();
      throw new StartFailure(2, `configuration error: ${refusal}`);
    }
    if (!(error instanceof StoreUnavailable)) throw error;
    logger.fatal({ database, reason: error.message }, `database unavailable for ${STARTUP_WAIT_MS / 1000} s at startup; exiting`);
    flushLogs();
    throw new StartFailure(1, `cannot reach the database (${database}) after ${STARTUP_WAIT_MS / 1000} s: ${error.message}`);
  }
}

async function openWithRetry(config: ServerConfig, database: string, { logger, flushLogs, tracing }: OpenDatabaseOptions): Promise<Store> {
  const deadline = Date.now() + STARTUP_WAIT_MS;
  for (let delay = 250; ; delay = Math.min(delay * 2, 4_000)) {
    try {
      return await openStore(config, {
        wrapEngine: tracing?.traceStore,
        onListenerState: (state, error) => {
          if (state === 'listening') logger.info({ database }, 'listening for changes; caches trusted again');
          else
            logger.warn(
              { database, reason: error instanceof Error ? error.message : undefined },
              'change listener dropped: caches bypassed until it reconnects',
            );
          // Rare and what an operator looks for during an outage: written now, not when the buffer fills.
          flushLogs();
        },
      });
    } catch (error) {
      if (!(error instanceof StoreUnavailable) || Date.now() + delay > deadline) throw error;
      logger.warn({ database, reason: error.message, retryInMs: delay }, 'database unavailable at startup; retrying');
      flushLogs();
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}
