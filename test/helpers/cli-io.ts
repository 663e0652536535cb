import type { CliIo } from '../../src/cli/io.js';

/** A CLI's output captured in memory, with the environment it is to read (only what is given: nothing of the test process's). */
export function capturedIo(env: NodeJS.ProcessEnv = {}): CliIo & { stdout(): string; stderr(): string } {
  let stdout = '';
  let stderr = '';
  return {
    out: (text) => {
      stdout += text;
    },
    err: (text) => {
      stderr += text;
    },
    env,
    stdout: () => stdout,
    stderr: () => stderr,
  };
}
