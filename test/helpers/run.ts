import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { projectRoot } from '../../src/contract/project.js';

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a binary from node_modules/.bin (or any command) and collects its output; never throws on a non-zero exit. */
export function run(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<CommandResult> {
  const local = resolve(projectRoot, 'node_modules', '.bin', command);
  const binary = command.includes('/') || command === 'node' ? command : local;
  return new Promise((done) => {
    execFile(
      binary,
      args,
      { cwd: options.cwd ?? projectRoot, env: { ...process.env, ...options.env }, timeout: options.timeoutMs ?? 60_000, maxBuffer: 32 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        done({ code, stdout, stderr });
      },
    );
  });
}
