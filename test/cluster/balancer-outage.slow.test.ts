/**
 * A database outage through the balancers operators use (issue 32, ADR 0034): two instances on one PostgreSQL
 * behind HAProxy on `deploy/haproxy.cfg`, then behind nginx on `deploy/nginx.conf`, under a bounded load of reads and writes from 127.0.0.1; PostgreSQL stopped
 * for 10 s, then started again. Every answer must be the server's own: a 2xx, or its 503 problem+json with
 * `Retry-After`; never the balancer's HTML, never a 502, never a failed request. Every write answered 2xx is there
 * afterwards (nothing lost), and the API answers 2xx again within 3 s of the database's return. The instances stay in
 * the pool throughout: readiness does not fail on the shared database.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { portToBindLater } from '../../src/cli/port-to-bind-later.js';
import { startHaproxy } from '../../tools/cluster/haproxy.js';
import { type LocalPostgres, SCRATCH_SETTINGS, startLocalPostgres } from '../../tools/cluster/local-postgres.js';
import type { LaunchedProcess } from '../../tools/process/launch.js';
import { makeKey } from '../../tools/process/make-key.js';
import { type ServerProcess, startServer } from '../../tools/process/server.js';
import { NGINX, NGINX_MISSING, startNginx } from '../deploy/nginx-harness.js';

interface Answer {
  sentAt: number;
  status: number | 'error';
  contentType: string;
  retryAfter: string | null;
  body: string;
  write: boolean;
  /** For a key's creation answered 2xx: its name, which must be listed afterwards. */
  created?: string;
}

let postgres: LocalPostgres;
let databaseUrl = '';
const instances: ServerProcess[] = [];
let key = '';

beforeAll(async () => {
  postgres = await startLocalPostgres({ prefix: 'balancer-outage-pg-', settings: { ...SCRATCH_SETTINGS, synchronous_commit: 'on' } });
  databaseUrl = await postgres.createDatabase('outage');
  const env = {
    DATABASE_URL: databaseUrl,
    DATABASE_CONNECT_TIMEOUT_MS: '1000',
    OPS_PORT: '0',
    TRUSTED_PROXIES: 'loopback',
    RATE_LIMIT_REQUESTS: '1000000',
    LOG_LEVEL: 'warn',
  };
  for (let index = 0; index < 2; index++) instances.push(await startServer({ databasePath: ':unused:', env, timeoutMs: 60_000 }));
  ({ key } = await makeKey(':unused:', 'ann', { DATABASE_URL: databaseUrl }));
}, 120_000);

afterAll(async () => {
  await Promise.all(instances.map((instance) => instance.stop()));
  postgres?.stop();
});

/** One answer as the test keeps it. */
async function kept(sentAt: number, response: Response, write: boolean): Promise<Answer> {
  return {
    sentAt,
    status: response.status,
    contentType: response.headers.get('content-type') ?? '',
    retryAfter: response.headers.get('retry-after'),
    body: await response.text(),
    write,
  };
}

/**
 * Until stopped: `readers` loops reading the public API's shared list, one request at a time, and one writer making a
 * key on the web application and revoking it, every 500 ms (inside the account API's 300 requests a minute).
 */
function load(api: string, web: string, cookie: string, readers: number): { answers: Answer[]; stop(): Promise<void> } {
  const answers: Answer[] = [];
  let stopped = false;
  const failed = (sentAt: number, write: boolean, error: unknown): Answer => ({
    sentAt,
    status: 'error',
    contentType: '',
    retryAfter: null,
    body: String(error),
    write,
  });
  const reading = Array.from({ length: readers }, async () => {
    while (!stopped) {
      const sentAt = Date.now();
      try {
        answers.push(
          await kept(
            sentAt,
            await fetch(`${api}/shared?sort=asc`, { headers: { authorization: `Bearer ${key}` }, signal: AbortSignal.timeout(10_000) }),
            false,
          ),
        );
      } catch (error) {
        answers.push(failed(sentAt, false, error));
      }
      await sleep(10);
    }
  });
  const headers = { cookie, origin: web, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' };
  const writing = (async () => {
    for (let turn = 0; !stopped; turn++) {
      const sentAt = Date.now();
      const name = `outage-${turn}`;
      try {
        const created = await fetch(`${web}/api/keys`, { method: 'POST', headers, body: JSON.stringify({ name }), signal: AbortSignal.timeout(10_000) });
        const answer = await kept(sentAt, created, true);
        answers.push(created.ok ? { ...answer, created: name } : answer);
        if (created.ok) {
          const { id } = (JSON.parse(answer.body) as { key: { id: string } }).key;
          const revokedAt = Date.now();
          answers.push(
            await kept(revokedAt, await fetch(`${web}/api/keys/${id}/revoke`, { method: 'POST', headers, signal: AbortSignal.timeout(10_000) }), true),
          );
        }
      } catch (error) {
        answers.push(failed(sentAt, true, error));
      }
      await sleep(500);
    }
  })();
  return {
    answers,
    stop: async () => {
      stopped = true;
      await Promise.all([...reading, writing]);
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether an answer is the server's own: a 2xx, or its 503 problem+json with Retry-After. */
function ownAnswer(answer: Answer): boolean {
  if (typeof answer.status === 'number' && answer.status >= 200 && answer.status < 300) return true;
  return (
    answer.status === 503 &&
    answer.contentType === 'application/problem+json' &&
    Number(answer.retryAfter) > 0 &&
    (JSON.parse(answer.body) as { type?: string }).type === 'urn:problem-type:service-unavailable'
  );
}

describe('a database outage behind the balancer', () => {
  it('HAProxy: every answer the server’s own, nothing lost, 2xx again within 3 s', { timeout: 120_000 }, async () => {
    const directory = mkdtempSync(join(tmpdir(), 'balancer-outage-'));
    const [apiPort, webPort] = [await portToBindLater(), await portToBindLater()];
    const haproxy: LaunchedProcess = await startHaproxy({
      upstreams: instances.map((instance, index) => ({
        name: `instance${index + 1}`,
        host: '127.0.0.1',
        port: instance.port,
        webPort: Number(new URL(instance.webUrl).port),
        opsPort: Number(new URL(instance.opsUrl ?? '').port),
      })),
      apiBind: `127.0.0.1:${apiPort}`,
      webBind: `127.0.0.1:${webPort}`,
      configFile: join(directory, 'haproxy.cfg'),
    });
    try {
      await outageUnder(`http://127.0.0.1:${apiPort}`, `http://127.0.0.1:${webPort}`, () => haproxy.stderr());
    } finally {
      await haproxy.stop();
    }
  });

  it('nginx: every answer the server’s own, nothing lost, 2xx again within 3 s', { timeout: 120_000 }, async () => {
    expect(existsSync(NGINX), NGINX_MISSING).toBe(true);
    const [apiListen, webListen] = [await portToBindLater(), await portToBindLater()];
    const nginx = await startNginx(mkdtempSync(join(tmpdir(), 'balancer-outage-nginx-')), {
      apiListen,
      api: instances.map((instance) => `127.0.0.1:${instance.port}`),
      webListen,
      web: instances.map((instance) => `127.0.0.1:${new URL(instance.webUrl).port}`),
    });
    try {
      // nginx has no active health check: it never takes an instance out for its /readyz, and passes each answer on.
      await outageUnder(`http://127.0.0.1:${apiListen}`, `http://127.0.0.1:${webListen}`, () => nginx.stderr());
    } finally {
      await nginx.stop();
    }
  });
});

async function outageUnder(api: string, web: string, balancerLog: () => string): Promise<void> {
  const cookie = await signUp(web, `ops${Date.now() % 100_000}`);
  const traffic = load(api, web, cookie, 3);
  await sleep(1_500);
  postgres.kill();
  await sleep(10_000);
  postgres.restart();
  const back = Date.now();
  await sleep(4_000);
  await traffic.stop();

  const strangers = traffic.answers.filter((answer) => !ownAnswer(answer));
  expect(
    strangers.slice(0, 5).map((answer) => `${answer.write ? 'write' : 'read'} ${answer.status} ${answer.contentType} ${answer.body.slice(0, 400)}`),
    `answers not the server's own, of ${traffic.answers.length}`,
  ).toEqual([]);
  expect(traffic.answers.filter((answer) => answer.status === 503).length, 'the outage was seen').toBeGreaterThan(10);
  expect(balancerLog()).not.toMatch(/no server available|0 active and 0 backup servers left|no live upstreams/);

  const recovered = traffic.answers.find((answer) => answer.sentAt >= back && answer.status === 200);
  expect(recovered, 'a 2xx after the database came back').toBeDefined();
  expect((recovered?.sentAt ?? Number.POSITIVE_INFINITY) - back).toBeLessThanOrEqual(3_000);
  const afterRecovery = traffic.answers.filter((answer) => answer.sentAt >= (recovered?.sentAt ?? 0));
  expect(afterRecovery.every((answer) => answer.status === 200 || answer.status === 201)).toBe(true);

  // Nothing lost: every key whose creation was answered 2xx is in its owner's list.
  const created = traffic.answers.flatMap((answer) => (answer.created ? [answer.created] : []));
  expect(created.length, 'keys were made before and after the outage').toBeGreaterThan(4);
  const listed = await fetch(`${web}/api/keys?limit=100`, { headers: { cookie } });
  expect(listed.status).toBe(200);
  const names = new Set(((await listed.json()) as { keys: Array<{ name: string }> }).keys.map((listedKey) => listedKey.name));
  expect(created.filter((name) => !names.has(name))).toEqual([]);
}

/** A new account on the web application, through the balancer; its session cookie. */
async function signUp(web: string, name: string): Promise<string> {
  const response = await fetch(`${web}/api/users`, {
    method: 'POST',
    headers: { origin: web, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' },
    body: JSON.stringify({ name, password: 'gravel orchid tandem whistle' }),
  });
  expect(response.status, await response.clone().text()).toBe(201);
  return response.headers
    .getSetCookie()
    .map((cookie) => cookie.split(';')[0])
    .join('; ');
}
