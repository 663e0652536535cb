/**
 * The settings page's ready-to-paste curl (issue 20, finding 13): run as a person runs it, in an interactive
 * bash and zsh that keep a history file, typed (pasted) as one line and then answered with the key. A fake
 * `curl` first on the PATH records its arguments (what the process list shows) and its standard input.
 * The key must reach curl, and appear neither in the history nor in curl's arguments.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateApiKey } from '../../src/keys/api-key.js';
import { curlCommand, shellQuote } from '../../src/pages/curl-command.js';

const scratch = mkdtempSync(join(tmpdir(), 'curl-command-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** An interactive shell with a history file, as a terminal would start it (without one: input from a pipe). */
const SHELLS = [
  {
    name: 'bash',
    path: '/usr/bin/bash',
    args: ['--norc', '--noprofile', '-i'],
    env: (home: string) => ({ HISTFILE: join(home, 'history') }),
  },
  {
    name: 'zsh',
    path: '/usr/bin/zsh',
    args: ['-i'],
    env: (home: string) => {
      writeFileSync(join(home, '.zshrc'), `HISTFILE=${join(home, 'history')}\nSAVEHIST=100\nHISTSIZE=100\nsetopt INC_APPEND_HISTORY\n`);
      return { ZDOTDIR: home };
    },
  },
] as const;

let runs = 0;

/** Types `command`, then the key at its prompt, then `exit`, into the shell; what the history and curl saw. */
function runAsAPerson(shell: (typeof SHELLS)[number], command: string, key: string) {
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

describe('the curl the settings page shows', () => {
  const command = curlCommand('http://127.0.0.1:3000');

  it('holds no key, is one line, and names the public API', () => {
    expect(command).not.toContain('tka_');
    expect(command).not.toContain('\n');
    expect(command).toContain(`'http://127.0.0.1:3000/'`);
  });

  for (const shell of SHELLS) {
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

  it('quotes the URL as one shell word, whatever it holds', () => {
    expect(shellQuote("http://h/it's")).toBe(`'http://h/it'\\''s'`);
    const echoed = spawnSync('/bin/sh', ['-c', `printf %s ${shellQuote("a'b $HOME `x`")}`], { encoding: 'utf8' });
    expect(echoed.stdout).toBe("a'b $HOME `x`");
  });
});
