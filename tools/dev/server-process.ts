import { spawn } from 'node:child_process';

/**
 * The smallest launcher `npm run dev` needs. It should move onto the project's
 * process toolkit (`tools/process/`) once that exists: same command, same readiness line.
 */
export interface DevServer {
  pid: number;
  /** Root URL the server printed in its `Listening on <url>` line. */
  url: string;
  /** Settles when the process has exited, with its exit code or signal. */
  exited: Promise<string>;
  /** SIGTERM to the server's process group, SIGKILL after `graceMs`; resolves once it has exited. */
  stop(graceMs?: number): Promise<void>;
}

export interface DevServerOptions {
  root: string;
  env: NodeJS.ProcessEnv;
  /** Receives everything the server writes, as it comes. */
  onOutput: (text: string) => void;
  timeoutMs?: number;
}

/**
 * Starts `node --import tsx src/server/main.ts` as the leader of its own process
 * group, so that stopping it stops anything it started, and resolves once it
 * prints `Listening on <url>` (it does at any LOG_LEVEL). Rejects with the
 * server's own output when it exits first.
 */
export function startDevServer(options: DevServerOptions): Promise<DevServer> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server/main.ts'], {
    cwd: options.root,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const pid = child.pid;
  if (pid === undefined) return Promise.reject(new Error('could not spawn the server'));
  let output = '';
  const exited = new Promise<string>((resolve) => child.once('exit', (code, signal) => resolve(signal ?? `exit code ${code}`)));
  const stop = async (graceMs = 5000) => {
    signalGroup(pid, 'SIGTERM');
    const killer = setTimeout(() => signalGroup(pid, 'SIGKILL'), graceMs);
    await exited;
    clearTimeout(killer);
  };
  return new Promise((resolve, reject) => {
    const timeoutMs = options.timeoutMs ?? 30_000;
    const timer = setTimeout(() => {
      void stop(0);
      reject(new ServerStartError(`the server printed no "Listening on" line within ${timeoutMs / 1000} s`, output));
    }, timeoutMs);
    let listening = false;
    const onText = (text: string) => {
      options.onOutput(text);
      if (listening) return;
      output += text;
      const url = /^Listening on (\S+)$/m.exec(output)?.[1];
      if (!url) return;
      listening = true;
      output = '';
      clearTimeout(timer);
      resolve({ pid, url, exited, stop });
    };
    child.stdout.setEncoding('utf8').on('data', onText);
    child.stderr.setEncoding('utf8').on('data', onText);
    void exited.then((how) => {
      clearTimeout(timer);
      if (!listening) reject(new ServerStartError(`the server exited (${how}) before listening`, output));
    });
  });
}

/** A server that exited or hung before it listened, with what it printed. */
export class ServerStartError extends Error {
  constructor(
    message: string,
    readonly output: string,
  ) {
    super(message);
    this.name = 'ServerStartError';
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}
