/**
 * The settings page's ready-to-paste curl (issue 20, finding 13): run as a person runs it, in an interactive
 * bash that keeps a history file (`curl-in-shell.ts`; zsh, which a fresh machine does not have, in
 * `curl-command-zsh.slow.test.ts`). The key must reach curl, and appear neither in the history nor in curl's arguments.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { curlCommand, shellQuote } from '../../src/pages/curl-command.js';
import { BASH, curlInShell } from './curl-in-shell.js';

describe('the curl the settings page shows', () => {
  const command = curlCommand('http://127.0.0.1:3000');

  it('holds no key, is one line, and names the public API', () => {
    expect(command).not.toContain('tka_');
    expect(command).not.toContain('\n');
    expect(command).toContain(`'http://127.0.0.1:3000/'`);
  });

  curlInShell(BASH, command);

  it('quotes the URL as one shell word, whatever it holds', () => {
    expect(shellQuote("http://h/it's")).toBe(`'http://h/it'\\''s'`);
    const echoed = spawnSync('/bin/sh', ['-c', `printf %s ${shellQuote("a'b $HOME `x`")}`], { encoding: 'utf8' });
    expect(echoed.stdout).toBe("a'b $HOME `x`");
  });
});
