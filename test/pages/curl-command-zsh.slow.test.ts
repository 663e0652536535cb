/**
 * The settings page's curl in an interactive zsh (`curl-in-shell.ts`), held to what bash is held to in
 * `curl-command.test.ts`. zsh is not on a fresh machine, so this runs in `npm run test:slow`, after CI installs it;
 * without it, the test fails with the command that installs it.
 */
import { describe } from 'vitest';
import { curlCommand } from '../../src/pages/curl-command.js';
import { curlInShell, ZSH } from './curl-in-shell.js';

describe('the curl the settings page shows, in zsh', () => {
  curlInShell(ZSH, curlCommand('http://127.0.0.1:3000'));
});
