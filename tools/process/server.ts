import { join } from 'node:path';
import { SERVER_NODE_FLAGS } from '../../src/config/node-flags.js';
import { projectRoot } from '../../src/contract/project.js';
import { PLAIN_HTTP_LINES } from '../../src/server/greeting.js';
import { READY_TO_LISTEN_LINE, READY_TO_LOAD_LINE } from '../../src/server/listen-on-signal.js';
import { tsxCommand } from './commands.js';
import { describeExit, type LaunchedProcess, type LaunchOptions, launch, type OutputMode } from './launch.js';
import { waitForOutput } from './ready.js';

/** The API server running as its own process, as `npm start` runs it. */
export interface ServerProcess extends LaunchedProcess {
  /** Root URL of the API, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  readonly port: number;
  /** Root URL of the web application, on its own listener. */
  readonly webUrl: string;
  /** Root URL of the ops listener (`/livez`, `/readyz`, `/metrics`) when `OPS_PORT` is set (`0`: a free port). */
  readonly opsUrl: string | undefined;
}

export interface StartServerOptions {
  /** DATABASE_PATH; leave it out when `env` names the database (DATABASE_URL). */
  databasePath?: string;
  /**
   * The server's environment on top of this process's and of the defaults for a harness
   * (NODE_ENV=production, LOG_LEVEL=info, HOST=127.0.0.1, PORT=0: a free port, SHUTDOWN_DELAY_SECONDS=0: a
   * harness stops its server at once, production's delay is for load balancers); `undefined` removes
   * a variable, so a default gives way to what this process has (the dev loop passes NODE_ENV on).
   */
  env?: Record<string, string | undefined>;
  /** Default `capture`; files for a server that outlives the process that reads its output (vitest's global setup). */
  output?: OutputMode;
  /** With `capture`, keep only about this many characters of each stream. */
  maxOutputChars?: number;
  /** With `capture`, each piece of output as it comes (the dev loop and the cluster pass it on). */
  onOutput?: LaunchOptions['onOutput'];
  /** How long to wait for the `Listening on` line (default 30 s). */
  timeoutMs?: number;
  /**
   * Run the built server (`dist/`, `npm run build`) with plain node and the production V8 flags, as operators run
   * it (`npm run start:prod`), instead of the source under tsx.
   */
  built?: boolean;
}

/** A server that ended or hung before it listened: `reason` in a few words, `output` the end of what it printed. */
export class ServerStartError extends Error {
  override name = 'ServerStartError';
  constructor(
    readonly reason: string,
    readonly output: string,
  ) {
    super(output === '' ? reason : `${reason}; its last output:\n${output}`);
  }
}

/** The lines of the server's greeting (`greeting` in src/server/greeting.ts), all on stderr, and the blank lines between them. */
const GREETING_LINE =
  /^(Bearer List API \S+ \(commit \w+, schema \d+\)|Listening on \S+|Web application on \S+|Probes and metrics on .*|Open \S+ in a browser: .*|Serving .*\.|For sample data to try the API on: .*|)$/;

/** What the server wrote on stderr besides its greeting: what a test expects to be empty (no warning, no stack). */
export function stderrBeyondGreeting(stderr: string): string {
  return stderr
    .split('\n')
    .filter((line) => !GREETING_LINE.test(line) && !PLAIN_HTTP_LINES.includes(line))
    .join('\n');
}

/**
 * The lines the server prints once its listeners are up, whatever LOG_LEVEL says, in one write: the API's and the web
 * application's, then the ops listener's when it has one.
 */
const LISTENING = /^Listening on (\S+)\nWeb application on (\S+)\n(?:Probes and metrics on (\S+) )?/m;

/**
 * Starts `src/server/main.ts` (the one way the tools start the server: the test harnesses, the soak,
 * the dev loop, the cluster's instances) and resolves once it prints `Listening on <url>` and
 * `Web application on <url>`. If it does not, it is stopped and a `ServerStartError` says why, with
 * its output.
 */
export async function startServer(options: StartServerOptions = {}): Promise<ServerProcess> {
  return untilListening(launchServer(options), options.timeoutMs ?? START_TIMEOUT_MS);
}

/** How long a server may take to print that it listens (or, staged, that it is ready to), unless told otherwise. */
const START_TIMEOUT_MS = 30_000;

/** A server started held (`LISTEN_ON_SIGNAL=1`): its code loaded and its contracts compiled, without a port or its database until released. */
export interface StagedServer {
  readonly pid: number;
  /** Whether its code was loaded before it was staged (`preloadServer`), rather than when it was started. */
  readonly preloaded: boolean;
  /** True once it is ready to listen; false when it ended first (`release()` then says why, with its output). */
  readonly ready: Promise<boolean>;
  /** Lets it open its database and listen (the ports must be free by then); resolves once it listens, as `startServer` does. */
  release(): Promise<ServerProcess>;
  /** Stops it: the checks it waited for failed, or a newer save came in. */
  discard(): Promise<void>;
}

/**
 * Starts the server held (`npm run dev`'s next server, started while the save is still checked). Its output
 * goes to `onOutput` only once it is released, so a server that is discarded says nothing; before then it is
 * kept, for a `ServerStartError` when it ends early.
 */
export function stageServer(options: StartServerOptions = {}): StagedServer {
  const output = heldOutput(options.onOutput);
  // At the typecheck's priority: the restart waits for both, and the server's start (tsx, the contracts compiled) takes
  // as long as the typecheck. Below it, it was left two seconds behind (lint and the tests' typecheck are below both).
  const server = launchServer({ ...options, env: { ...options.env, LISTEN_ON_SIGNAL: '1' }, onOutput: output.onOutput });
  return heldServer(server, output, readyWithin(server, READY_TO_LISTEN, options.timeoutMs ?? START_TIMEOUT_MS), options, false);
}

/** A server started with its code loaded and nothing read yet (`LOAD_ON_SIGNAL=1`): `npm run dev`'s spare between saves. */
export interface PreloadedServer {
  readonly pid: number;
  /** True once its code is loaded; false when it ended first (its staged server then says why). */
  readonly loaded: Promise<boolean>;
  /** Lets it read its configuration and contracts, then hold before it listens, as a staged server does. */
  stage(): StagedServer;
  /** Stops it: the code it loaded changed, or the loop stops. */
  discard(): Promise<void>;
}

/**
 * Starts the server loaded but not started (`LOAD_ON_SIGNAL=1` and `LISTEN_ON_SIGNAL=1`): it waits, for as long
 * as it takes, until `stage()`. Its output is held as a staged server's is.
 */
export function preloadServer(options: StartServerOptions = {}): PreloadedServer {
  const output = heldOutput(options.onOutput);
  const timeoutMs = options.timeoutMs ?? START_TIMEOUT_MS;
  const server = launchServer({ ...options, env: { ...options.env, LOAD_ON_SIGNAL: '1', LISTEN_ON_SIGNAL: '1' }, onOutput: output.onOutput });
  const loaded = readyWithin(server, READY_TO_LOAD, timeoutMs);
  return {
    pid: server.pid,
    loaded,
    stage() {
      // Signalled only once it said it loaded: before its handler is in place, SIGUSR2 would end it.
      const ready = loaded.then((ok) => {
        if (!ok) return false;
        server.signal('SIGUSR2');
        return readyWithin(server, READY_TO_LISTEN, timeoutMs);
      });
      return heldServer(server, output, ready, options, true);
    },
    async discard() {
      await server.stop({ graceMs: 2_000 });
    },
  };
}

/** True once the server prints `line`; false when it ends first or `timeoutMs` passes. */
function readyWithin(server: LaunchedProcess, line: RegExp, timeoutMs: number): Promise<boolean> {
  return waitForOutput(server, line, { timeoutMs }).then(
    () => true,
    () => false,
  );
}

/** A held server's output: kept until it is released, then passed on. */
function heldOutput(forward: StartServerOptions['onOutput']) {
  const held: string[] = [];
  const state = { released: false };
  return {
    onOutput: (text: string, stream: 'stdout' | 'stderr') => {
      if (state.released) forward?.(text, stream);
      else held.push(text);
    },
    /** Passes on what it said while held, without the lines that say it waits, and everything after. */
    release() {
      state.released = true;
      const before = held.join('').replace(READY_LINES_AND_NEWLINE, '');
      if (before.trim() !== '') forward?.(before, 'stderr');
    },
  };
}

function heldServer(
  server: LaunchedProcess,
  output: ReturnType<typeof heldOutput>,
  ready: Promise<boolean>,
  options: StartServerOptions,
  preloaded: boolean,
): StagedServer {
  const timeoutMs = options.timeoutMs ?? START_TIMEOUT_MS;
  return {
    pid: server.pid,
    preloaded,
    ready,
    async release() {
      if (!(await ready)) {
        if (server.exitStatus()) return untilListening(server, 0);
        await server.stop({ signal: 'SIGKILL' });
        throw new ServerStartError(`the server was not ready to listen within ${timeoutMs / 1000} s`, server.outputTail());
      }
      output.release();
      server.signal('SIGUSR2');
      return untilListening(server, timeoutMs);
    },
    async discard() {
      await server.stop({ graceMs: 2_000 });
    },
  };
}

const READY_TO_LISTEN = new RegExp(`^${READY_TO_LISTEN_LINE}$`, 'm');
const READY_TO_LOAD = new RegExp(`^${READY_TO_LOAD_LINE}$`, 'm');
const READY_LINES_AND_NEWLINE = new RegExp(`^(${READY_TO_LOAD_LINE}|${READY_TO_LISTEN_LINE})\\n`, 'gm');

function launchServer(options: StartServerOptions): LaunchedProcess {
  const command = options.built ? [process.execPath, ...SERVER_NODE_FLAGS, join(projectRoot, 'bin/run-built.mjs'), 'server'] : tsxCommand('src/server/main.ts');
  return launch(command, {
    env: {
      NODE_ENV: 'production',
      LOG_LEVEL: 'info',
      HOST: '127.0.0.1',
      PORT: '0',
      SHUTDOWN_DELAY_SECONDS: '0',
      ...(options.databasePath !== undefined && { DATABASE_PATH: options.databasePath }),
      ...options.env,
    },
    output: options.output ?? 'capture',
    ...(options.maxOutputChars !== undefined && { maxOutputChars: options.maxOutputChars }),
    ...(options.onOutput !== undefined && { onOutput: options.onOutput }),
  });
}

/** Resolves once the server prints both listeners' URLs; otherwise stops it and throws a `ServerStartError`. */
async function untilListening(server: LaunchedProcess, timeoutMs: number): Promise<ServerProcess> {
  try {
    const [, url = '', webUrl = '', opsUrl] = await waitForOutput(server, LISTENING, { timeoutMs });
    return { ...server, url, port: Number(new URL(url).port), webUrl, opsUrl };
  } catch {
    const exit = server.exitStatus();
    await server.stop({ signal: 'SIGKILL' });
    const reason = exit
      ? `the server ended (${describeExit(exit)}) before listening`
      : `the server printed no "Listening on" line within ${timeoutMs / 1000} s`;
    throw new ServerStartError(reason, server.outputTail());
  }
}
