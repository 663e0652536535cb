/** The PostgreSQL pool's gauges, read from a real pool at each scrape. Slow: it needs the run's PostgreSQL. */
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/ops/metrics.js';
import { openStore } from '../../src/store/open-store.js';
import { freshDatabase } from '../helpers/postgres.js';

describe('the pool gauges', () => {
  it('report the pool size, its idle and used connections and the queries waiting', { timeout: 60_000 }, async () => {
    const store = await openStore({ databasePath: ':memory:', databaseUrl: await freshDatabase('pool-metrics'), postgres: { poolSize: 3 } });
    try {
      const metrics = createMetrics({ storeStats: () => store.stats?.(), pool: true, processMetrics: false });
      await Promise.all(Array.from({ length: 6 }, () => store.ping()));
      const text = await metrics.metrics();
      expect(text).toMatch(/^db_client_connection_max 3$/m);
      const idle = Number(/^db_client_connection_count\{state="idle"\} (\d+)$/m.exec(text)?.[1]);
      const used = Number(/^db_client_connection_count\{state="used"\} (\d+)$/m.exec(text)?.[1]);
      expect(idle + used).toBeGreaterThan(0);
      expect(idle + used).toBeLessThanOrEqual(3);
      expect(text).toMatch(/^db_client_connection_pending_requests 0$/m);
    } finally {
      await store.close();
    }
  });
});
