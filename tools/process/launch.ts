import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { execa, type Options } from 'execa';
import { describeExit, type Exit } from '../../src/cli/wait-for-http.js';
import { projectRoot } from '../../src/contract/project.js';
import { groupGone, killGroupOnExit, release, sendSignal } from './process-group.js';

export { describeExit, type Exit };

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
  /** With `capture`: also hands each piece of output to this function as it comes (the dev loop passes the server's on). */
  onOutput?: (text: string, stream: 'stdout' | 'stderr') => void;
  /**
   * Default true: the process leads its own process group, so `stop()` also ends whatever it
   * started (npm, tsx's child, Prism's workers). False keeps it in this process's group, where a
   * terminal's Ctrl-C reaches it too.
   */
  ownGroup?: boolean;
  /** Run it on this CPU core only (`taskset -c`); taskset execs the command, so `pid` is still the program's. */
  core?: number;
  /**
   * Run it this much lower in the CPU's queue (`nice -n`, which execs the command: `pid` is still the program's),
   * with every thread and child it starts: work whose result can wait for the work beside it.
   */
  niceness?: number;
  /** Put the project's `node_modules/.bin` first on its PATH, as `npm run` does (execa's `preferLocal`). */
  preferLocal?: boolean;
}

export interface LaunchedProcess {
  readonly pid: number;
  /** The command line, for messages. */
  readonly commandLine: string;
  /** Settles once the process has ended and its output is read; never rejects. */
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
 * Starts `argv` (command and arguments; no shell) with execa. The tools' one way to start a
 * process: the server, Prism, a CLI, a bench peer, a check. Throws when the command cannot be
 * started at all.
 *
 * What execa does here: spawning, the environment on top of this one, `preferLocal`, one promise
 * for the end with its exit code or signal, and a process outside a group of its own is killed when
 * this one exits (its `cleanup`). What stays here: process groups (execa signals the process only;
 * `stop()` ends what it started too, npm's and tsx's children, and waits for them), output kept
 * while the process runs (execa buffers until the end; the readiness checks read it before then),
 * and files opened here and handed over as descriptors, so the output never passes through this process.
 *
 * @example
 * const prism = launch(['node', 'prism.js', 'mock', 'openapi.yaml'], { output: 'capture' });
 * await prism.stop();
 */
export function launch(argv: readonly string[], options: LaunchOptions = {}): LaunchedProcess {
  const niced = options.niceness === undefined ? argv : ['nice', '-n', String(options.niceness), ...argv];
  const pinned = options.core === undefined ? niced : ['taskset', '-c', String(options.core), ...niced];
  const [command, ...args] = pinned;
  if (command === undefined) throw new Error('launch: empty command line');
  const commandLine = pinned.join(' ');
  const output = options.output ?? 'capture';
  const ownGroup = options.ownGroup ?? true;

  const files = typeof output === 'object' ? openOutputFiles(output) : undefined;
  // Descriptors go to the child as they are (execa's `{ file }` would pipe the output through this process).
  // execa documents "a file descriptor integer" for stdout and stderr; its types list only 1 and 2.
  const descriptor = (fd: number) => fd as unknown as Options['stdout'];
  const stdio: Pick<Options, 'stdout' | 'stderr'> = files
    ? { stdout: descriptor(files.stdout), stderr: descriptor(files.stderr) }
    : output === 'capture'
      ? { stdout: 'pipe', stderr: 'pipe' }
      : { stdout: output as 'inherit' | 'ignore', stderr: output as 'inherit' | 'ignore' };
  const subprocess = execa(command, args, {
    cwd: options.cwd ?? projectRoot,
    env: options.env ?? {},
    stdin: 'ignore',
    ...stdio,
    detached: ownGroup,
    preferLocal: options.preferLocal ?? false,
    // Output is read from the streams as it comes (below), not buffered to the end.
    buffer: false,
    // A failed or killed process is an outcome to report, not an exception.
    reject: false,
    // stop() sends SIGKILL itself, to the group when there is one.
    forceKillAfterDelay: false,
  });
  // The child has its own copies of the descriptors.
  if (files) for (const fd of new Set([files.stdout, files.stderr])) closeSync(fd);
  const pid = subprocess.pid;
  // A command that cannot start (ENOENT, EACCES) has no pid; execa's promise then settles with the failure, which is not needed.
  if (pid === undefined) throw new Error(`launch: could not start ${commandLine}`);
  // `nice` alone does not do it on Linux with autogroups: a process that leads a session of its own is weighed
  // against the others as a group, whatever its threads' nice values (the staged server's and lint's did not yield).
  if (options.niceness !== undefined && ownGroup) setAutogroupNiceness(pid, options.niceness);

  let status: Exit | undefined;
  // execa settles once the process has exited and its output streams are drained: a process counts as
  // ended when everything it wrote (the error message before exit 2) can be read.
  const exited: Promise<Exit> = subprocess.then((result) => {
    status = { code: result.exitCode ?? null, signal: (result.signal as NodeJS.Signals | undefined) ?? null };
    return status;
  });
  const leaderEnded = new Promise<void>((resolve) => subprocess.once('exit', () => resolve()));

  let out = '';
  let err = '';
  const cap = options.maxOutputChars ?? Number.POSITIVE_INFINITY;
  // Trimmed in halves rather than on every chunk, so a chatty process does not cost a copy per line.
  const keep = (text: string) => (text.length > 2 * cap ? text.slice(-cap) : text);
  subprocess.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    out = keep(out + chunk);
    options.onOutput?.(chunk, 'stdout');
  });
  subprocess.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    err = keep(err + chunk);
    options.onOutput?.(chunk, 'stderr');
  });

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

/** The nice value of the autogroup a session leader heads (Linux, `sched_autogroup_enabled`); nothing elsewhere. */
function setAutogroupNiceness(pid: number, niceness: number): void {
  try {
    writeFileSync(`/proc/${pid}/autogroup`, String(niceness));
  } catch {}
}
