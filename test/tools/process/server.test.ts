import { afterAll, describe, expect, it } from 'vitest';
import { scratchDatabase } from '../../../tools/process/scratch-database.js';
import { ServerStartError, startServer } from '../../../tools/process/server.js';

const database = scratchDatabase('start-server-test-');
afterAll(() => database.remove());

describe('startServer', () => {
  it('resolves with both URLs once the server listens, and stop() ends it', async () => {
    const server = await startServer({ databasePath: database.path, env: { LOG_LEVEL: 'warn' } });
    try {
      expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
      expect(server.webUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(server.webUrl).not.toBe(server.url);
      expect((await fetch(`${server.url}/shared`)).status).toBe(401);
    } finally {
      expect(await server.stop()).toEqual({ code: 0, signal: null });
    }
  });

  it('fails with a ServerStartError saying how the server ended and what it printed', async () => {
    const failure = await startServer({ databasePath: database.path, env: { PORT: 'x' } }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ServerStartError);
    expect((failure as ServerStartError).reason).toBe('the server ended (exit code 2) before listening');
    expect((failure as ServerStartError).output).toContain('PORT must be a whole number');
    expect((failure as ServerStartError).message).toContain('; its last output:\nconfiguration error: PORT must be a whole number');
  });
});
