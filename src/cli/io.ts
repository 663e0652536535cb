/** Where a CLI writes and what environment it reads: the process's own, or a test's. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  env: NodeJS.ProcessEnv;
}

export const processIo: CliIo = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
  env: process.env,
};

/** A CLI's output kept in memory, with the environment it is to read (only what is given: nothing of this process's). */
export function bufferedIo(env: NodeJS.ProcessEnv = {}): CliIo & { stdout(): string; stderr(): string } {
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
