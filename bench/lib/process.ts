// Server processes: start one with its output in a log file, wait for its first 200, read its RSS, stop it.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';

export interface ServerProcess {
  readonly pid: number;
  readonly logFile: string;
  /** Resolves with the exit code (or signal name) once the process has ended. */
  readonly exited: Promise<number | string>;
  hasExited(): boolean;
  /** How it ended: an exit code, a signal name, or undefined while it runs. */
  exitStatus(): number | string | undefined;
  /** The last lines the process wrote, for error messages. */
  logTail(lines?: number): string;
  /** SIGTERM, then SIGKILL if it has not ended within `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Starts `argv` with stdout and stderr going to `logFile`, so a chatty server costs the
 * load generator nothing. The process leads its own group so that stopping it also
 * stops anything it started.
 */
export function startProcess(argv: string[], options: { env: NodeJS.ProcessEnv; logFile: string; cwd?: string }): ServerProcess {
  const [command, ...args] = argv;
  if (command === undefined) throw new Error('empty command line');
  const log = openSync(options.logFile, 'a');
  const child: ChildProcess = spawn(command, args, { env: options.env, cwd: options.cwd, stdio: ['ignore', log, log], detached: true });
  closeSync(log);
  let ended = false;
  let status: number | string | undefined;
  const exited = new Promise<number | string>((resolve) => {
    const end = (how: number | string) => {
      ended = true;
      status = how;
      resolve(how);
    };
    child.once('exit', (code, signal) => end(code ?? signal ?? 'unknown'));
    child.once('error', (error) => end(error.message));
  });
  if (child.pid === undefined) throw new Error(`could not start ${argv.join(' ')}`);
  const pid = child.pid;
  return {
    pid,
    logFile: options.logFile,
    exited,
    hasExited: () => ended,
    exitStatus: () => status,
    logTail(lines = 15) {
      try {
        return readFileSync(options.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
      } catch {
        return '';
      }
    },
    async stop(graceMs = 3000) {
      if (ended) return;
      signalGroup(pid, 'SIGTERM');
      const timer = setTimeout(() => signalGroup(pid, 'SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
      // Whatever the leader started and left behind goes with it.
      signalGroup(pid, 'SIGKILL');
    },
  };
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}

/** Resident set size of one process in bytes (VmRSS of /proc/<pid>/status); undefined off Linux or once it has ended. */
export function readRss(pid: number): number | undefined {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Clock ticks per second of /proc/<pid>/stat; 100 on every Linux this runs on (`getconf CLK_TCK`). */
const CLOCK_TICKS_PER_SECOND = 100;

/** CPU time (user + system, all threads) a process has used so far, in ms; undefined off Linux or once it has ended. */
export function readCpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which may itself hold spaces and parentheses; utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

export interface Request {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
}

/**
 * Sends `request` until it is answered with 200, and returns the time that took;
 * fails when the process ends first or `timeoutMs` passes.
 */
export async function waitForOk(server: ServerProcess, request: Request, timeoutMs: number, intervalMs = 20): Promise<number> {
  const started = performance.now();
  for (;;) {
    if (server.hasExited()) throw new Error(`exited before answering 200:\n${server.logTail()}`);
    try {
      const response = await fetch(request.url, { method: request.method, headers: request.headers, body: request.body ?? null });
      await response.arrayBuffer();
      if (response.status === 200) return performance.now() - started;
    } catch {
      // Not listening yet.
    }
    if (performance.now() - started > timeoutMs) throw new Error(`no 200 within ${timeoutMs} ms:\n${server.logTail()}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
