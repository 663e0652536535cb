/**
 * `npm run bench:postgres`: the measurements behind two choices (docs/adr/0010, 0011), on a throwaway
 * PostgreSQL with its default durability settings, over loopback:
 * - the driver: a key lookup by digest with `pg` (named prepared statement) and with postgres.js
 *   (prepared by default), one at a time (latency) and 16 at a time on a pool of 8 (client CPU per lookup);
 * - the shared rate limit: an upsert per request (logged table, the rate-limiter-flexible way) against
 *   leasing quota in blocks (`lease_quota`, unlogged) at block sizes 1, 12 and 100.
 */
import pg from 'pg';
import postgresJs from 'postgres';
import { startLocalPostgres } from '../cluster/local-postgres.js';
import { generateApiKey } from '../../src/keys/api-key.js';
import { openStore } from '../../src/store/open-store.js';

const SEQUENTIAL = Number(process.env['BENCH_LOOKUPS'] ?? 5_000);
const CONCURRENT = 16;
const KEYS = 1_000;

interface Result {
  what: string;
  usPerOp: number;
  clientCpuUsPerOp: number;
}

async function time(what: string, count: number, op: (index: number) => Promise<unknown>, concurrency = 1): Promise<Result> {
  for (let index = 0; index < 200; index++) await op(index); // warm: connections made, statements prepared
  const cpu = process.cpuUsage();
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await op(next++);
    }),
  );
  const elapsedUs = (performance.now() - started) * 1000;
  const used = process.cpuUsage(cpu);
  return { what, usPerOp: elapsedUs / count, clientCpuUsPerOp: (used.user + used.system) / count };
}

const server = await startLocalPostgres({ prefix: 'bench-pg-' });
const results: Result[] = [];
try {
  const url = await server.createDatabase('bench');
  const store = await openStore({ databasePath: ':unused:', databaseUrl: url });
  const user = await store.createUser('bench', new Date().toISOString());
  const digests: Buffer[] = [];
  const keyIds: string[] = [];
  for (let index = 0; index < KEYS; index++) {
    const { digest, hint } = generateApiKey();
    digests.push(digest);
    keyIds.push((await store.createKey(user.id, digest, hint, new Date().toISOString())).id);
  }
  await store.close();
  const lookup = 'SELECT id, user_id, revoked_at, last_used_at FROM api_keys WHERE digest = $1';
  const digest = (index: number) => digests[index % KEYS] as Buffer;

  const client = new pg.Client({ connectionString: url });
  await client.connect();
  results.push(
    await time('pg, named prepared, 1 connection, one at a time', SEQUENTIAL, (index) => client.query({ name: 'find', text: lookup, values: [digest(index)] })),
  );
  results.push(await time('pg, unnamed (parse each time), 1 connection', SEQUENTIAL, (index) => client.query(lookup, [digest(index)])));
  await client.end();
  const pool = new pg.Pool({ connectionString: url, max: 8 });
  results.push(
    await time(
      `pg, named prepared, pool of 8, ${CONCURRENT} in flight`,
      SEQUENTIAL * 2,
      (index) => pool.query({ name: 'find', text: lookup, values: [digest(index)] }),
      CONCURRENT,
    ),
  );

  const one = postgresJs(url, { max: 1 });
  results.push(
    await time(
      'postgres.js, prepared, 1 connection, one at a time',
      SEQUENTIAL,
      (index) => one`SELECT id, user_id, revoked_at, last_used_at FROM api_keys WHERE digest = ${digest(index)}`,
    ),
  );
  await one.end();
  const many = postgresJs(url, { max: 8 });
  results.push(
    await time(
      `postgres.js, prepared, pool of 8, ${CONCURRENT} in flight`,
      SEQUENTIAL * 2,
      (index) => many`SELECT id, user_id, revoked_at, last_used_at FROM api_keys WHERE digest = ${digest(index)}`,
      CONCURRENT,
    ),
  );
  await many.end();

  // Rate limit options, all on the pg pool, 16 requests in flight over 50 keys.
  await pool.query('CREATE TABLE upsert_limits (key_id text PRIMARY KEY, window_index bigint NOT NULL, used integer NOT NULL)');
  const keyOf = (index: number) => keyIds[index % 50] as string;
  const window = () => Math.floor(Date.now() / 60_000);
  results.push(
    await time(
      'rate limit: upsert per request (logged table, synchronous commit)',
      SEQUENTIAL,
      (index) =>
        pool.query({
          name: 'upsert',
          text: `INSERT INTO upsert_limits AS r (key_id, window_index, used) VALUES ($1, $2, 1)
                 ON CONFLICT (key_id) DO UPDATE SET used = CASE WHEN r.window_index = $2 THEN r.used + 1 ELSE 1 END, window_index = $2 RETURNING used`,
          values: [keyOf(index), window()],
        }),
      CONCURRENT,
    ),
  );
  for (const block of [1, 12, 100]) {
    let left = 0;
    const lease = () => pool.query({ name: 'lease', text: 'SELECT * FROM lease_quota($1, $2, $3, $4)', values: [keyOf(0), 1_000_000_000, 60_000, block] });
    // One key, one instance: a lease every `block` requests, the rest counted in memory.
    results.push(
      await time(
        `rate limit: lease_quota in blocks of ${block} (unlogged)`,
        SEQUENTIAL,
        async () => {
          if (left === 0) {
            left = (await lease()).rows[0].granted;
          }
          left--;
        },
        1,
      ),
    );
  }
  await pool.end();
} finally {
  server.stop();
}

const width = Math.max(...results.map((result) => result.what.length));
console.log(`${'measurement'.padEnd(width)}  wall us/op  client CPU us/op`);
for (const result of results)
  console.log(`${result.what.padEnd(width)}  ${result.usPerOp.toFixed(1).padStart(10)}  ${result.clientCpuUsPerOp.toFixed(1).padStart(16)}`);
