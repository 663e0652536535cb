import { spawn, type ChildProcess } from 'node:child_process';

export interface CommandOutput {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Children still running, so that Ctrl-C can stop them with the loop. */
const running = new Set<ChildProcess>();

/** Runs a command to completion and collects its output. */
export function runCommand(command: string, args: string[], cwd: string): Promise<CommandOutput> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    running.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', (error) => {
      running.delete(child);
      reject(error);
    });
    child.once('close', (code) => {
      running.delete(child);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Stops every command still running. */
export function stopRunningCommands(): void {
  for (const child of running) child.kill('SIGTERM');
}
