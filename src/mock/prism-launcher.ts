import type { Server } from 'node:http';
import { execa } from 'execa';
import type { AwaitedProcess, Exit } from '../cli/wait-for-http.js';
import { projectRoot } from '../contract/project.js';

/** Prism as a mock launcher runs it: in the foreground, writing to this terminal. */
export interface PrismProcess extends AwaitedProcess {
  /** Settles once Prism has ended; never rejects. */
  readonly exited: Promise<Exit>;
  /** Sends a signal to Prism; a no-op once it has ended. */
  signal(signal: NodeJS.Signals): void;
  /** SIGTERM, SIGKILL after 10 s; resolves with how it ended. */
  stop(): Promise<Exit>;
}

/** Prism started by a mock launcher (`npm run mock`, `npm run mock:web`) that serves its own server in front of it. */
export interface LaunchedPrism {
  prism: PrismProcess;
  /** The launcher's server, once it listens, so a signal closes it too. */
  serving(server: Server): void;
  /** Whether the launcher was asked to stop (a signal, or `requestStop`): Prism ending then is a clean exit. */
  stopRequested(): boolean;
  /** Stops Prism as a signal would. */
  requestStop(): void;
}

/**
 * Starts Prism (with execa) in this process's group, so a terminal's Ctrl-C reaches Prism as it reaches
 * npm and the launcher, and execa kills it if the launcher dies first. On SIGINT or SIGTERM the
 * launcher's server closes and Prism gets the same signal; the launcher ends when Prism does.
 */
export function launchPrism(argv: readonly string[]): LaunchedPrism {
  const [command = '', ...args] = argv;
  const subprocess = execa(command, args, {
    cwd: projectRoot,
    stdin: 'ignore',
    stdout: 'inherit',
    stderr: 'inherit',
    reject: false,
    forceKillAfterDelay: 10_000,
  });
  let status: Exit | undefined;
  const exited = subprocess.then((result) => {
    status = { code: result.exitCode ?? null, signal: (result.signal as NodeJS.Signals | undefined) ?? null };
    return status;
  });
  const prism: PrismProcess = {
    commandLine: argv.join(' '),
    exited,
    exitStatus: () => status,
    // Its output went to the terminal.
    outputTail: () => '',
    signal(signal) {
      if (status === undefined) subprocess.kill(signal);
    },
    stop() {
      if (status === undefined) subprocess.kill('SIGTERM');
      return exited;
    },
  };
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
