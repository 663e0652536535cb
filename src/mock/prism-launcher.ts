import type { Server } from 'node:http';
import { launch, type LaunchedProcess } from '../../tools/process/launch.js';

/** Prism started by a mock launcher (`npm run mock`, `npm run mock:web`) that serves its own server in front of it. */
export interface LaunchedPrism {
  prism: LaunchedProcess;
  /** The launcher's server, once it listens, so a signal closes it too. */
  serving(server: Server): void;
  /** Whether the launcher was asked to stop (a signal, or `requestStop`): Prism ending then is a clean exit. */
  stopRequested(): boolean;
  /** Stops Prism as a signal would. */
  requestStop(): void;
}

/**
 * Starts Prism in this process's group, so a terminal's Ctrl-C reaches Prism as it reaches npm and the
 * launcher. On SIGINT or SIGTERM the launcher's server closes and Prism gets the same signal; the
 * launcher ends when Prism does.
 */
export function launchPrism(argv: readonly string[]): LaunchedPrism {
  const prism = launch(argv, { output: 'inherit', ownGroup: false });
  let stopRequested = false;
  let server: Server | undefined;
  const stop = (signal: 'SIGINT' | 'SIGTERM') => {
    stopRequested = true;
    server?.close();
    server?.closeAllConnections();
    prism.signal(signal);
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => stop(signal));
  return {
    prism,
    serving: (listening) => {
      server = listening;
    },
    stopRequested: () => stopRequested,
    requestStop: () => stop('SIGTERM'),
  };
}
