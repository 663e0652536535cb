import { createServer, type Server } from 'node:net';
import { afterAll, describe, expect, it, vi } from 'vitest';

// The first port picked is one another process binds between the pick and PostgreSQL's own bind.
const taken: { server?: Server; port?: number | undefined } = {};
vi.mock('../../../src/cli/port-to-bind-later.js', async (original) => {
  const actual = await original<typeof import('../../../src/cli/port-to-bind-later.js')>();
  let picks = 0;
  return {
    portToBindLater: async (host?: string) => {
      picks++;
      if (picks === 1 && taken.port !== undefined) return taken.port;
      return actual.portToBindLater(host);
    },
  };
});

const { startLocalPostgres } = await import('../../../tools/cluster/local-postgres.js');

afterAll(() => taken.server?.close());

describe('startLocalPostgres', () => {
  it('starts on another port when the one it picked was taken before PostgreSQL bound it', { timeout: 120_000 }, async () => {
    taken.server = createServer();
    await new Promise<void>((resolve) => taken.server?.listen(0, '127.0.0.1', resolve));
    const address = taken.server.address();
    taken.port = typeof address === 'object' && address ? address.port : undefined;
    const postgres = await startLocalPostgres({ prefix: 'pg-port-taken-' });
    try {
      expect(postgres.port).not.toBe(taken.port);
      expect(postgres.log()).toMatch(/could not bind|Address already in use/i);
      const { default: pg } = await import('pg');
      const client = new pg.Client({ connectionString: postgres.url });
      await client.connect();
      expect((await client.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
      await client.end();
    } finally {
      postgres.stop();
    }
  });
});
