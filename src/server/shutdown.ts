import type { Server } from 'node:http';
import type { Logger } from 'pino';
import { closeConnectionsAfterAnswers } from '../http/listener.js';

export interface ShutdownOptions {
  /** The listeners open so far (none while the server starts). */
  listeners(): readonly Server[];
  /** How long the listeners go on serving after `/readyz` has turned 503 (`SHUTDOWN_DELAY_SECONDS`). */
  delaySeconds: number;
  /** How long in-flight requests may run once the listeners close, before their connections are cut (`SHUTDOWN_GRACE_MS`). */
  graceMs: number;
  logger: Logger;
  flushLogs(done?: () => void): void;
  /** What closes once the listeners have: the timers, the store, the spans, the ops listener. */
  closeRest(): Promise<void>;
}

/**
 * How the server stops: draining first (`/readyz` answers 503 and every answer says `Connection: close`, while the
 * listeners go on serving for the delay, so a load balancer sees it and stops sending), then the listeners close,
 * finishing what is in flight, then the rest. A second request to stop during the delay closes at once.
 */
export class Shutdown {
  readonly #options: ShutdownOptions;
  #closeNow: (() => void) | undefined;
  #stopped: Promise<void> | undefined;

  constructor(options: ShutdownOptions) {
    this.#options = options;
  }

  /** True from the first request to stop: `/readyz`'s `draining` check reads it. */
  get draining(): boolean {
    return this.#stopped !== undefined;
  }

  /**
   * Drains for the delay (none when no listener is open yet), then closes; a second call closes now. `signal` is
   * what asked, for the log; without one, nothing is said of draining. Resolves once all is closed and the log written.
   */
  stop(signal: string | undefined, delaySeconds = this.#options.delaySeconds): Promise<void> {
    if (this.#stopped) {
      // A second signal during the delay: the operator means now.
      this.#closeNow?.();
      return this.#stopped;
    }
    const { listeners, logger, flushLogs } = this.#options;
    this.#stopped = new Promise<void>((resolve, reject) => {
      for (const server of listeners()) closeConnectionsAfterAnswers(server);
      const delayMs = listeners().length > 0 ? delaySeconds * 1000 : 0;
      if (signal !== undefined) {
        logger.info({ signal, delaySeconds: delayMs / 1000 }, 'draining: /readyz answers 503 now; the listeners close after the delay');
        flushLogs();
      }
      const close = () => void this.#close().then(resolve, reject);
      const delay = setTimeout(close, delayMs);
      this.#closeNow = () => {
        clearTimeout(delay);
        close();
      };
    });
    return this.#stopped;
  }

  async #close(): Promise<void> {
    this.#closeNow = () => undefined;
    const { listeners, logger, flushLogs, graceMs, closeRest } = this.#options;
    const servers = listeners();
    logger.info('shutting down: no new connections, finishing in-flight requests');
    // Close stops accepting; idle keep-alive sockets are closed now, busy ones after their response.
    const closed = servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve())));
    for (const server of servers) server.closeIdleConnections();
    // close() only closes the connections idle at this moment; a busy keep-alive connection would otherwise stay open until its keep-alive timeout after its response.
    const sweep = setInterval(() => {
      for (const server of servers) server.closeIdleConnections();
    }, 100);
    sweep.unref();
    const deadline = setTimeout(() => {
      logger.error({ graceMs }, 'requests still running after the grace period; closing their connections');
      for (const server of servers) server.closeAllConnections();
    }, graceMs);
    deadline.unref();
    await Promise.all(closed);
    clearTimeout(deadline);
    clearInterval(sweep);
    try {
      await closeRest();
    } finally {
      logger.info('stopped');
      await new Promise<void>((resolve) => flushLogs(resolve));
    }
  }
}
