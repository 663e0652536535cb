import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { portToBindLater } from '../../../src/cli/port-to-bind-later.js';
import { scratchDatabase } from '../../../tools/process/scratch-database.js';
import { preloadServer, ServerStartError, stageServer } from '../../../tools/process/server.js';

const database = scratchDatabase('staged-server-test-');
afterAll(() => database.remove());

async function answers(url: string): Promise<number | string> {
  try {
    return (await fetch(`${url}/shared`)).status;
  } catch (error) {
    return (error as { cause?: { code?: string } }).cause?.code ?? 'failed';
  }
}

describe('stageServer (LISTEN_ON_SIGNAL=1, how npm run dev starts the next server)', () => {
  it('gets ready without a port or the database, and listens once released', async () => {
    const port = await portToBindLater();
    const staged = stageServer({ databasePath: database.path, env: { PORT: String(port), LOG_LEVEL: 'warn' } });
    expect(await staged.ready).toBe(true);
    // Held: the port is free (the last server may still hold it) and the database is not opened (it may still be in use).
    expect(await answers(`http://127.0.0.1:${port}`)).toBe('ECONNREFUSED');
    expect(existsSync(database.path)).toBe(false);
    const server = await staged.release();
    try {
      expect(server.url).toBe(`http://127.0.0.1:${port}`);
      expect(await answers(server.url)).toBe(401);
      expect(existsSync(database.path)).toBe(true);
    } finally {
      expect(await server.stop()).toEqual({ code: 0, signal: null });
    }
  });

  it('is stopped, held, when discarded', async () => {
    const staged = stageServer({ databasePath: database.path, env: { LOG_LEVEL: 'warn' } });
    expect(await staged.ready).toBe(true);
    await staged.discard();
    await expect(staged.release()).rejects.toThrow(/the server ended \(exit code 0\) before listening/);
  });

  it('says why when it ends before it is ready', async () => {
    const staged = stageServer({ databasePath: database.path, env: { PORT: 'x' } });
    expect(await staged.ready).toBe(false);
    const failure = await staged.release().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ServerStartError);
    expect((failure as ServerStartError).reason).toBe('the server ended (exit code 2) before listening');
    expect((failure as ServerStartError).output).toContain('PORT must be a whole number');
  });
});

describe("preloadServer (LOAD_ON_SIGNAL=1, npm run dev's spare between saves)", () => {
  const unopened = scratchDatabase('preloaded-server-test-');
  afterAll(() => unopened.remove());

  it('loads its code and reads nothing, not even its configuration, until staged; then it is a staged server', async () => {
    const port = await portToBindLater();
    const spare = preloadServer({ databasePath: unopened.path, env: { PORT: String(port), LOG_LEVEL: 'warn' } });
    expect(await spare.loaded).toBe(true);
    const staged = spare.stage();
    expect(staged.preloaded).toBe(true);
    expect(await staged.ready).toBe(true);
    expect(await answers(`http://127.0.0.1:${port}`)).toBe('ECONNREFUSED');
    expect(existsSync(unopened.path)).toBe(false);
    const server = await staged.release();
    try {
      expect(await answers(server.url)).toBe(401);
    } finally {
      expect(await server.stop()).toEqual({ code: 0, signal: null });
    }
  });

  it('refuses a wrong setting only once staged: it had not read its configuration before', async () => {
    const spare = preloadServer({ databasePath: database.path, env: { PORT: 'x' } });
    expect(await spare.loaded).toBe(true);
    const staged = spare.stage();
    expect(await staged.ready).toBe(false);
    const failure = await staged.release().catch((error: unknown) => error);
    expect((failure as ServerStartError).reason).toBe('the server ended (exit code 2) before listening');
    expect((failure as ServerStartError).output).toContain('PORT must be a whole number');
  });

  it('is stopped, loaded, when discarded', async () => {
    const spare = preloadServer({ databasePath: database.path, env: { LOG_LEVEL: 'warn' } });
    expect(await spare.loaded).toBe(true);
    await spare.discard();
    await expect(spare.stage().release()).rejects.toThrow(/the server ended \(.+\) before listening/);
  });
});
