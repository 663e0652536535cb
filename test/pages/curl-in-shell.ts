/**
 * The settings page's curl, run as a person runs it (`curl-command.test.ts`, and zsh's in `curl-command-zsh.slow.test.ts`):
 * an interactive shell with a history file, the command typed (pasted) as one line and then answered with the key.
 * A fake `curl` first on the PATH records its arguments (what the process list shows) and its standard input.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { generateApiKey } from '../../src/keys/api-key.js';
import { shellQuote } from '../../src/pages/curl-command.js';

const scratch = mkdtempSync(join(tmpdir(), 'curl-command-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

export interface Shell {
  name: string;
  path: string;
  args: readonly string[];
  /** The shell's environment for a history file in `home`. */
  env: (home: string) => Record<string, string>;
  /** The Debian package that has it, for the install command a test fails with when it is missing. */
  debianPackage: string;
}

/** bash, as a fresh machine has it. */
export const BASH: Shell = {
  name: 'bash',
  path: '/usr/bin/bash',
  args: ['--norc', '--noprofile', '-i'],
  env: (home) => ({ HISTFILE: join(home, 'history') }),
  debianPackage: 'bash',
};

/** zsh, which a fresh machine does not have: `npm run test:slow` only, after CI installs it. */
export const ZSH: Shell = {
  name: 'zsh',
  path: '/usr/bin/zsh',
  args: ['-i'],
  env: (home) => {
    writeFileSync(join(home, '.zshrc'), `HISTFILE=${join(home, 'history')}\nSAVEHIST=100\nHISTSIZE=100\nsetopt INC_APPEND_HISTORY\n`);
    return { ZDOTDIR: home };
  },
  debianPackage: 'zsh',
};

let runs = 0;

/** Types `command`, then the key at its prompt, then `exit`, into the shell; what the history and curl saw. */
export function runAsAPerson(shell: Shell, command: string, key: string) {
  if (!existsSync(shell.path)) throw new Error(`${shell.name} is not installed (${shell.path}): apt-get update && apt-get install -y ${shell.debianPackage}`);
  const home = join(scratch, `run-${++runs}`);
  const bin = join(home, 'bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(
    join(bin, 'curl'),
    `#!/bin/sh\nprintf '%s\\n' "$@" > ${shellQuote(join(home, 'argv'))}\ncat > ${shellQuote(join(home, 'stdin'))}\necho '{"items":[],"nextCursor":null}'\n`,
  );
  chmodSync(join(bin, 'curl'), 0o755);
  const result = spawnSync(shell.path, shell.args, {
    input: `${command}\n${key}\nexit\n`,
    env: { HOME: home, PATH: `${bin}:/usr/bin:/bin`, TERM: 'dumb', ...shell.env(home) },
    encoding: 'utf8',
    timeout: 10_000,
  });
  const read = (name: string) => (existsSync(join(home, name)) ? readFileSync(join(home, name), 'utf8') : '');
  return { status: result.status, output: `${result.stdout}${result.stderr}`, history: read('history'), argv: read('argv'), stdin: read('stdin') };
}

/** The two cases every shell is held to, for the command the page shows. */
export function curlInShell(shell: Shell, command: string): void {
  it(`in ${shell.name}: asks for the key, which reaches curl on its input, never its arguments or the history`, () => {
    const { key } = generateApiKey();
    const run = runAsAPerson(shell, command, key);
    expect(run.status, run.output).toBe(0);
    expect(run.output).toContain('Paste your API key and press Enter: ');
    expect(run.output).toContain('{"items":[],"nextCursor":null}');
    expect(run.stdin).toBe(`Authorization: Bearer ${key}\n`);
    expect(run.argv.split('\n')).toEqual([
      '-s',
      '-X',
      'POST',
      'http://127.0.0.1:3000/',
      '-H',
      '@-',
      '-H',
      'Content-Type: application/json',
      '-d',
      '{"sort":"asc"}',
      '',
    ]);
    expect(run.history).toContain(command);
    expect(run.history).not.toContain(key);
  });

  it(`in ${shell.name}: the command the page showed before put the key into the history`, () => {
    const { key } = generateApiKey();
    const before = `printf 'Authorization: Bearer %s\\n' '${key}' | curl -s -X POST http://127.0.0.1:3000/ -H @- -H 'Content-Type: application/json' -d '{"sort":"asc"}'`;
    const run = runAsAPerson(shell, before, '');
    expect(run.stdin).toBe(`Authorization: Bearer ${key}\n`);
    expect(run.argv).not.toContain(key);
    expect(run.history).toContain(key);
  });
}
