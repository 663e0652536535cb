import { describe, expect, it } from 'vitest';
import { addServerChecks } from '../../src/ops/checks.js';
import { createOpsApp } from '../../src/ops/ops-app.js';
import { Readiness } from '../../src/ops/readiness.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';

async function readyz(readiness: Readiness) {
  const response = await createOpsApp({ readiness }).request('/readyz');
  return { status: response.status, body: (await response.json()) as { status: string; checks: Record<string, { ready: boolean; reason?: string }> } };
}

describe('the ops app', () => {
  it('answers /livez with 200 whatever readiness says', async () => {
    const readiness = new Readiness().add('never', () => 'not today');
    const response = await createOpsApp({ readiness }).request('/livez');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'live' });
  });

  it('answers /readyz with 200 and each check when all pass, 503 with the reasons when one does not', async () => {
    let draining = false;
    const store = await openStore({ databasePath: ':memory:' });
    try {
      const readiness = addServerChecks(new Readiness(), { store: () => store, draining: () => draining });
      expect(await readyz(readiness)).toEqual({
        status: 200,
        body: { status: 'ready', checks: { migrations: { ready: true }, database: { ready: true, advisory: true }, draining: { ready: true } } },
      });
      draining = true;
      const { status, body } = await readyz(readiness);
      expect(status).toBe(503);
      expect(body.status).toBe('not ready');
      expect(body.checks['draining']).toEqual({ ready: false, reason: expect.stringContaining('shutting down') });
      expect(body.checks['database']).toEqual({ ready: true, advisory: true });
    } finally {
      await store.close();
    }
  });

  it('is not ready before the store is open; stays ready, saying so, when the shared database does not answer (ADR 0034)', async () => {
    let store: Store | undefined;
    const readiness = addServerChecks(new Readiness(), { store: () => store, draining: () => false });
    const opening = await readyz(readiness);
    expect(opening.status).toBe(503);
    expect(opening.body.checks['migrations']).toEqual({ ready: false, reason: 'the database is being opened and migrated' });
    store = await openStore({ databasePath: ':memory:' });
    await store.close(); // a closed database throws on every query, as one that went away does
    const closed = await readyz(readiness);
    expect(closed.status).toBe(200);
    expect(closed.body.checks['database']).toEqual({ ready: false, reason: 'the database does not answer (the server log says why)', advisory: true });
  });

  it('asks the database at most once a second whatever the callers, and keeps its error text for the log', async () => {
    let at = 0;
    let pings = 0;
    const errors: unknown[] = [];
    let answers = true;
    const store = {
      ping: async () => {
        pings++;
        if (!answers) throw new Error('connect ECONNREFUSED 10.0.0.5:5432');
      },
    } as unknown as Store;
    const readiness = addServerChecks(new Readiness(), {
      store: () => store,
      draining: () => false,
      onDatabaseError: (error) => errors.push(error),
      now: () => at,
    });
    await Promise.all(Array.from({ length: 200 }, () => readiness.report()));
    expect(pings).toBe(1);
    answers = false;
    at = 999;
    expect((await readiness.report()).ready).toBe(true);
    at = 1_000;
    const report = await readyz(readiness);
    expect(pings).toBe(2);
    expect(JSON.stringify(report.body)).not.toContain('ECONNREFUSED');
    expect(String(errors[0])).toContain('ECONNREFUSED');
  });

  it('takes further named checks, and counts a check that hangs or throws as not ready', async () => {
    const readiness = new Readiness({ timeoutMs: 50 })
      .add('secrets', () => undefined)
      .add('hangs', () => new Promise<undefined>(() => undefined))
      .add('throws', () => {
        throw new Error('boom');
      });
    expect(() => readiness.add('secrets', () => undefined)).toThrow(/already added/);
    const { status, body } = await readyz(readiness);
    expect(status).toBe(503);
    expect(body.checks).toEqual({
      secrets: { ready: true },
      hangs: { ready: false, reason: 'no answer within 50 ms' },
      throws: { ready: false, reason: 'boom' },
    });
  });

  it('serves /metrics only when given metrics, and a JSON 404 elsewhere', async () => {
    const readiness = new Readiness();
    expect((await createOpsApp({ readiness }).request('/metrics')).status).toBe(404);
    const app = createOpsApp({ readiness, metrics: { contentType: 'text/plain; version=0.0.4', metrics: async () => 'up 1\n' } });
    const response = await app.request('/metrics');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4');
    expect(await response.text()).toBe('up 1\n');
    expect((await app.request('/v1/items')).status).toBe(404);
  });
});
