/**
 * Node entry point: `npm start`. Reads the environment and runs the server (`service.ts`) as this process:
 * its signals and its exit codes. It opens the database (creating it on first run, empty) and serves two
 * listeners until SIGTERM/SIGINT: the public API on PORT, and the web application (the pages and the account
 * API) on WEB_PORT, each with its own contract, headers and CORS (docs/web-application.md).
 *
 * Exit codes: 0 stopped by a signal; 2 a configuration error (`configuration error: …` on stderr); 1 anything
 * else (a port taken, the database away for 30 s, an uncaught exception).
 */
import { ConfigError, configurationWarnings, loadOnSignal, readServerConfig, type ServerConfig } from '../config/env.js';
import { READY_TO_LISTEN_LINE, READY_TO_LOAD_LINE, waitForSignal } from './listen-on-signal.js';
import { createServerProcess, type ServerProcess } from './service.js';
import { StartFailure } from './start-failure.js';

let config: ServerConfig;
let server: ServerProcess;
try {
  // Held here by `npm run dev`'s spare server (LOAD_ON_SIGNAL=1) until a save of the spec: its code loaded, nothing read.
  if (loadOnSignal()) await waitForSignal(READY_TO_LOAD_LINE);
  config = readServerConfig();
  server = await createServerProcess(config, { warnings: configurationWarnings() });
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(`configuration error: ${error.message}`);
  process.exit(2);
}
const { logger } = server;

// Registered before anything is opened: a signal during startup (or the instant after the greeting, which is
// what a script waiting for it sends) ends the process through the shutdown, with exit code 0, not by the default action.
const stop = (signal: NodeJS.Signals) => {
  void server.drain(signal).then(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
// By default SIGHUP ends the process at once, losing the buffered lines. Here it is the usual "reopen your logs":
// stdout is not a file to reopen, so the buffer is written now, and the server goes on.
process.on('SIGHUP', () => {
  logger.info({ signal: 'SIGHUP' }, 'SIGHUP: logs flushed; still serving (SIGTERM or SIGINT stops the server)');
  server.flushLogs();
});

// Held here by `npm run dev` (LISTEN_ON_SIGNAL=1) while it checks a save: ready, without a port or the database yet.
if (config.listenOnSignal) await waitForSignal(READY_TO_LISTEN_LINE);

try {
  await server.listen();
} catch (error) {
  if (!(error instanceof StartFailure)) throw error;
  console.error(error.said);
  process.exit(error.exitCode);
}

process.on('uncaughtException', (error) => {
  logger.fatal({ err: error }, 'uncaught exception');
  server.flushLogs(() => process.exit(1));
});
