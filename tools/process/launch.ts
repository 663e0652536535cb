import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { projectRoot } from '../../src/contract/project.js';
import { groupGone, killGroupOnExit, release, sendSignal } from './process-group.js';

/** How a process ended: its exit code, or the signal that ended it. */
export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** `exit code 1` or `signal SIGKILL`, for messages. */
export function describeExit(exit: Exit): string {
  return exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`;
}

/**
 * Where a process's output goes: kept in memory (`capture`, for tests and error messages),
 * passed through to this process's terminal (`inherit`), dropped (`ignore`), or written to
 * files, so that a chatty server costs the process reading it nothing (the bench). The two
 * files may be the same path.
 */
export type OutputMode = 'capture' | 'inherit' | 'ignore' | { stdoutFile: string; stderrFile: string };

export interface LaunchOptions {
  /** Default: the project root, so entries and the spec resolve as `npm run` resolves them. */
  cwd?: string;
  /** Added to this process's environment; `undefined` removes a variable. */
  env?: Record<string, string | undefined>;
  /** Default `capture`. */
  output?: OutputMode;
  /** With `capture`: keep only about the last this many characters of each stream (a long soak logs a line per request). */
  maxOutputChars?: number;
  /**
   * Default true: the process leads its own process group, so `stop()` also ends whatever it
   * started (npm, tsx's child, Prism's workers). False keeps it in this process's group, where a
   * terminal's Ctrl-C reaches it too (`npm run mock` starting Prism).
   */
  ownGroup?: boolean;
  /** Run it on this CPU core only (`taskset -c`); taskset execs the command, so `pid` is still the program's. */
  core?: number;
}

export interface LaunchedProcess {
  readonly pid: number;
  /** The command line, for messages. */
  readonly commandLine: string;
  /** Settles once the process has ended; never rejects. */
  readonly exited: Promise<Exit>;
  /** How it ended, or undefined while it runs. */
  exitStatus(): Exit | undefined;
  /** What it wrote to stdout so far (captured, or read from its file; empty for `inherit` and `ignore`). */
  stdout(): string;
  stderr(): string;
  /** The last `lines` lines of stdout and stderr, for error messages. */
  outputTail(lines?: number): string;
  /** Sends a signal to the process itself (not its group); a no-op once it has ended. */
  signal(signal: NodeJS.Signals): void;
  /**
   * Sends `signal` (default SIGTERM) to the process, or to its group when it leads one, waits for
   * it to end, and sends SIGKILL after `graceMs` (default 10 s) if it has not. Then kills whatever
   * is left of its group and waits until it is gone. Safe to call again; resolves with how it ended.
   */
  stop(options?: { signal?: NodeJS.Signals; graceMs?: number }): Promise<Exit>;
}

/**
 * Starts `argv` (command and arguments; no shell). The toolkit's one way to start a process:
 * the server, Prism, a CLI, a bench peer. Throws when the command cannot be started at all.
 *
 * @example
 * const prism = launch(['node', 'prism.js', 'mock', 'openapi.yaml'], { output: 'capture' });
 * await prism.stop();
 */
export function launch(argv: readonly string[], options: LaunchOptions = {}): LaunchedProcess {
  const pinned = options.core === undefined ? argv : ['taskset', '-c', String(options.core), ...argv];
  const [command, ...args] = pinned;
  if (command === undefined) throw new Error('launch: empty command line');
  const commandLine = pinned.join(' ');
  const output = options.output ?? 'capture';
  const ownGroup = options.ownGroup ?? true;

  const files = typeof output === 'object' ? openOutputFiles(output) : undefined;
  const stdio: StdioOptions = files
    ? ['ignore', files.stdout, files.stderr]
    : output === 'capture'
      ? ['ignore', 'pipe', 'pipe']
      : output === 'inherit'
        ? 'inherit'
        : 'ignore';
  const child: ChildProcess = spawn(command, args, { cwd: options.cwd ?? projectRoot, env: { ...process.env, ...options.env }, stdio, detached: ownGroup });
  // The child has its own copies of the descriptors.
  if (files) for (const fd of new Set([files.stdout, files.stderr])) closeSync(fd);

  let status: Exit | undefined;
  // 'close' comes after 'exit' once the output pipes are drained: a process counts as ended when
  // everything it wrote (the error message before exit 2) can be read.
  const exited = new Promise<Exit>((resolve) =>
    child.once('close', (code, signal) => {
      status = { code, signal };
      resolve(status);
    }),
  );
  const leaderEnded = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // A command that cannot start (ENOENT, EACCES) has no pid: thrown here, so its later 'error' event is only noise.
  child.once('error', () => {});
  const pid = child.pid;
  if (pid === undefined) throw new Error(`launch: could not start ${commandLine}`);

  let out = '';
  let err = '';
  const cap = options.maxOutputChars ?? Number.POSITIVE_INFINITY;
  // Trimmed in halves rather than on every chunk, so a chatty process does not cost a copy per line.
  const keep = (text: string) => (text.length > 2 * cap ? text.slice(-cap) : text);
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (out = keep(out + chunk)));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (err = keep(err + chunk)));

  if (ownGroup) {
    killGroupOnExit(pid);
    void exited.then(() => release(pid));
  }

  const readStdout = () => (typeof output === 'object' ? readText(output.stdoutFile) : out);
  const readStderr = () => (typeof output === 'object' ? (output.stderrFile === output.stdoutFile ? '' : readText(output.stderrFile)) : err);

  return {
    pid,
    commandLine,
    exited,
    exitStatus: () => status,
    stdout: readStdout,
    stderr: readStderr,
    outputTail: (lines = 15) => [readStdout(), readStderr()].join('\n').trim().split('\n').slice(-lines).join('\n'),
    signal(signal) {
      if (status === undefined) sendSignal(pid, signal, { group: false });
    },
    async stop({ signal = 'SIGTERM', graceMs = 10_000 } = {}) {
      if (status === undefined) {
        sendSignal(pid, signal, { group: ownGroup });
        const killer = setTimeout(() => sendSignal(pid, 'SIGKILL', { group: ownGroup }), graceMs);
        // Not `exited`: a leftover child could hold the pipes open until the group is killed below.
        await Promise.race([leaderEnded, exited]);
        clearTimeout(killer);
      }
      // Whatever the leader started and left behind goes with it.
      if (ownGroup && sendSignal(pid, 'SIGKILL', { group: true })) await groupGone(pid);
      return exited;
    },
  };
}

function openOutputFiles(output: { stdoutFile: string; stderrFile: string }): { stdout: number; stderr: number } {
  const stdout = openSync(output.stdoutFile, 'a');
  return { stdout, stderr: output.stderrFile === output.stdoutFile ? stdout : openSync(output.stderrFile, 'a') };
}

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
