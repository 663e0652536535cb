import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bufferedIo } from '../../src/cli/io.js';
import { runKeys } from '../../src/cli/keys-command.js';
import { accountPresets } from '../../src/contract/presets.js';

const scratch = mkdtempSync(join(tmpdir(), 'keys-cli-test-'));
const databasePath = join(scratch, 'api.sqlite');
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
// The account spec's choices, read from it: an edit of the presets or the name's length leaves these tests green.
const PRESETS = accountPresets();
const SHORTEST = PRESETS.expiresInDays.values[0] as number;
const NAME = PRESETS.keyName;
/** The keys CLI in-process (`test/server/process.slow.test.ts` runs it as a real process beside a server). */
async function keys(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const io = bufferedIo({ DATABASE_PATH: databasePath });
  const code = await runKeys(args, io);
  return { code, stdout: io.stdout(), stderr: io.stderr() };
}

describe('npm run keys, with the fields of the account settings page', () => {
  it('creates a named key with an expiry from the presets, lists it with its state, and shows its events', async () => {
    const before = Date.now();
    const created = await keys(['create', '--user', 'ops', '--name', 'nightly export', '--expires-in-days', String(SHORTEST), '--json']);
    expect(created.code, created.stderr).toBe(0);
    const key = JSON.parse(created.stdout) as { id: string; key: string; name: string; expiresAt: string };
    expect(key.name).toBe('nightly export');
    expect(Date.parse(key.expiresAt) - before).toBeGreaterThanOrEqual(SHORTEST * 86_400_000);
    expect(Date.parse(key.expiresAt) - before).toBeLessThan(SHORTEST * 86_400_000 + 60_000);

    const listed = await keys(['list', '--user', 'ops']);
    expect(listed.stdout).toMatch(new RegExp(`${key.id}  "nightly export"  tka_…${key.key.slice(-4)}  active  .+  never  ${key.expiresAt}`));
    expect(listed.stdout).not.toContain(key.key);

    expect((await keys(['revoke', key.id])).code).toBe(0);
    const events = await keys(['events', '--user', 'ops', '--json']);
    expect((JSON.parse(events.stdout) as Array<{ type: string; source: string }>).map((event) => `${event.type} ${event.source}`).sort()).toEqual([
      'created cli',
      'revoked cli',
    ]);
  });

  it.each([
    {
      given: 'an expiry outside the presets',
      args: ['create', '--user', 'ops', '--expires-in-days', String(SHORTEST + 0.5)],
      want: new RegExp(`--expires-in-days must be one of ${PRESETS.expiresInDays.values.join(', ')}, not "${SHORTEST + 0.5}"`),
    },
    {
      given: 'an empty name',
      args: ['create', '--user', 'ops', '--name', '  '],
      want: new RegExp(`--name must be ${NAME.minLength}-${NAME.maxLength} characters`),
    },
    {
      given: 'a name with a control character',
      args: ['create', '--user', 'ops', '--name', 'ci\u001b[2J'],
      want: /--name "ci\\u001b\[2J": .*control character/,
    },
    // The user is created with the key: only under a name sign-up would take, which the account API lists back.
    { given: 'a user name the account API does not take (upper case)', args: ['create', '--user', 'Ops'], want: /--user "Ops": must match pattern .*UserName/ },
    { given: 'a user name shorter than UserName allows', args: ['create', '--user', 'op'], want: /--user "op": must NOT have fewer than 3 characters/ },
    { given: 'events of an unknown user', args: ['events', '--user', 'nobody'], want: /no user named "nobody"/, code: 1 },
    // Commander took whatever follows a value option as its value: this made a user named "--json" (the
    // helper behind the refusal is tested in-process in option-values.test.ts).
    {
      given: 'an option where --user needs its value',
      args: ['create', '--user', '--json'],
      want: /'--user <name>' argument '--json' is invalid.*looks like an option/,
    },
  ])('refuses $given', async ({ args, want, code = 2 }) => {
    const result = await keys(args);
    expect(result.code).toBe(code);
    expect(result.stderr).toMatch(want);
    // Refused before anything is written: no key was printed.
    expect(result.stdout).not.toMatch(/tka_/);
  });
});

describe('npm run keys, bad usage and failures', { concurrent: true }, () => {
  it.each([
    { given: 'no command', args: [], code: 2 },
    { given: 'an unknown command', args: ['rotate'], code: 2 },
    { given: 'create without --user', args: ['create'], code: 2 },
    { given: 'a user name with spaces', args: ['create', '--user', 'a b'], code: 2 },
    { given: 'list for an unknown user', args: ['list', '--user', 'nobody'], code: 1 },
    { given: 'revoke an unknown key', args: ['revoke', 'key_doesnotexist00'], code: 1 },
    { given: '--help', args: ['--help'], code: 0 },
  ])('exits $code on $given with a clear message', async ({ args, code }) => {
    const result = await keys(args);
    expect(result.code).toBe(code);
    expect(code === 0 ? result.stdout : result.stderr).not.toBe('');
  });
});
