import { afterAll, describe, expect, it } from 'vitest';
import { tsxCommand } from '../../src/process/commands.js';
import { makeKey } from '../../src/process/make-key.js';
import { waitForOutput } from '../../src/process/ready.js';
import { runCommand } from '../../src/process/run-command.js';
import { scratchDatabase } from '../../src/process/scratch-database.js';
import { startServer, type ServerProcess } from '../../src/process/server.js';

const database = scratchDatabase('process-test-');
const databasePath = database.path;
const started: ServerProcess[] = [];
afterAll(async () => {
  await Promise.all(started.map((server) => server.stop({ signal: 'SIGKILL' })));
  database.remove();
});

/** Starts the server and waits until it has printed its whole greeting. */
async function start(): Promise<ServerProcess> {
  const server = await startServer({ databasePath });
  started.push(server);
  await waitForOutput(server, /Try it:[\s\S]*curl|make a key with/i, { timeoutMs: 10_000 });
  return server;
}

const output = (server: ServerProcess) => server.stdout() + server.stderr();
const keys = (args: string[]) => runCommand(tsxCommand('src/cli/keys.ts', args), { env: { DATABASE_PATH: databasePath } });

describe('npm start, as a real process', () => {
  it('creates the database on first run and prints a demo key with a curl command that works', async () => {
    const server = await start();
    const greeting = output(server);
    expect(greeting).toContain('First run');
    const curl = /^\s*(curl .+)$/m.exec(greeting)?.[1];
    expect(curl).toBeDefined();
    const { code, stdout } = await runCommand(['bash', '-c', curl!]);
    expect(code).toBe(0);
    const page = JSON.parse(stdout) as { items: Array<{ title: string }>; nextCursor: string | null };
    expect(page.items.length).toBeGreaterThan(0);
    expect(page.items[0]?.title).toBe('Quarterly report draft');
    expect((await server.stop()).code).toBe(0);
  });

  it('on later starts keeps the data and says how to make a key', async () => {
    const server = await start();
    expect(output(server)).not.toContain('First run');
    expect(output(server)).toContain('npm run keys -- create --user');
    expect((await server.stop()).code).toBe(0);
  });
});

// Each case is its own process; they run side by side (the database is the one npm start made above).
describe('npm run keys', { concurrent: true }, () => {
  it('creates, lists and revokes keys; a revoked key stops working on the running server (within the 100 ms bound)', async () => {
    const server = await start();
    const created = await makeKey(databasePath, 'erin');
    expect(created.key).toMatch(/^tka_[0-9A-Za-z]{38}$/);
    const ok = await fetch(`${server.url}/shared`, { headers: { Authorization: `Bearer ${created.key}` } });
    expect(ok.status).toBe(200);

    const listed = await keys(['list', '--user', 'erin', '--json']);
    expect(listed.code).toBe(0);
    const summaries = JSON.parse(listed.stdout) as Array<{ id: string; hint: string; lastUsedAt: string | null }>;
    expect(summaries).toEqual([expect.objectContaining({ id: created.id, hint: `tka_…${created.key.slice(-4)}`, lastUsedAt: expect.any(String) })]);
    expect(listed.stdout).not.toContain(created.key);

    const revoked = await keys(['revoke', created.id]);
    expect(revoked).toMatchObject({ code: 0, stdout: expect.stringContaining('Revoked') });
    const refused = await fetch(`${server.url}/shared`, { headers: { Authorization: `Bearer ${created.key}` } });
    expect(refused.status).toBe(401);
    expect((await server.stop()).code).toBe(0);
  });

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
