import { afterAll, describe, expect, it } from 'vitest';
import { tsxCommand } from '../../tools/process/commands.js';
import { makeKey } from '../../tools/process/make-key.js';
import { waitForOutput } from '../../tools/process/ready.js';
import { runCommand } from '../../tools/process/run-command.js';
import { scratchDatabase } from '../../tools/process/scratch-database.js';
import { type ServerProcess, startServer } from '../../tools/process/server.js';
import { ITEM_TEXT_FIELD } from '../helpers/item-fixture.js';

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
  await waitForOutput(server, /^Serving .+\.$/m, { timeoutMs: 10_000 });
  return server;
}

const output = (server: ServerProcess) => server.stdout() + server.stderr();
const keys = (args: string[]) => runCommand(tsxCommand('src/cli/keys.ts', args), { env: { DATABASE_PATH: databasePath } });

/** Anything shaped like an API key (`tka_` and 38 letters or digits; `src/keys/api-key.ts`). */
const API_KEY_SHAPE = /tka_[0-9A-Za-z]{38}/;

describe('npm start and npm run seed, as real processes', () => {
  it('creates an empty database on first run and prints where to go, with no key and no data', async () => {
    const server = await start();
    const greeting = output(server);
    expect(greeting).toMatch(/^Web application on http:\/\/127\.0\.0\.1:\d+$/m);
    expect(greeting).toContain('which has no users yet');
    expect(greeting).toContain('npm run seed');
    // The greeting is printed where anyone may read it (stderr, beside the logs): it must never carry a live secret.
    expect(greeting).not.toMatch(API_KEY_SHAPE);
    expect((await server.stop()).code).toBe(0);
  });

  it('on an in-memory database, says it is gone at stop and out of reach of npm run seed, rather than suggest it', async () => {
    const server = await startServer({ databasePath: ':memory:' });
    started.push(server);
    await waitForOutput(server, /^Serving .+\.$/m, { timeoutMs: 10_000 });
    expect(output(server)).toContain(':memory:, which has no users yet');
    expect(output(server)).toContain('It is in memory: gone when the server stops');
    expect(output(server)).not.toContain('For sample data');
    expect((await server.stop()).code).toBe(0);
  });

  it('adds the demo data only when asked, once, without printing a key; a key made for it then lists the demo items', async () => {
    const seeded = await runCommand(tsxCommand('src/cli/seed.ts'), { env: { DATABASE_PATH: databasePath } });
    expect(seeded, seeded.stderr).toMatchObject({ code: 0, stdout: expect.stringContaining('npm run keys -- create --user demo') });
    expect(seeded.stdout + seeded.stderr).not.toMatch(API_KEY_SHAPE);
    const again = await runCommand(tsxCommand('src/cli/seed.ts'), { env: { DATABASE_PATH: databasePath } });
    expect(again).toMatchObject({ code: 1, stderr: expect.stringContaining('already exists') });

    const server = await start();
    expect(output(server)).not.toContain('no users yet');
    expect(output(server)).not.toMatch(API_KEY_SHAPE);
    const { key } = await makeKey(databasePath, 'demo');
    const response = await fetch(`${server.url}/`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: '{"sort":"asc"}',
    });
    expect(response.status).toBe(200);
    const page = (await response.json()) as { items: Array<Record<string, unknown>> };
    // The demo data's first item (src/store/demo-data.ts), its text under the field the spec's Item has.
    expect(page.items[0]?.[ITEM_TEXT_FIELD.name]).toBe('Quarterly report draft');
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
});
