/**
 * The mock and the server, side by side, on what the contract suite's cases do not send: a header only
 * the mock honours, a browser's preflight, a write from another site. Each probe goes to both; a
 * difference must be listed (PROBE_DIFFERENCES in src/contract-suite/known-differences.ts, with its
 * reason), and a listed one must still occur.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROBE_DIFFERENCES } from '../../src/contract-suite/known-differences.js';
import { makeKey } from '../../tools/process/make-key.js';
import { type MockProcess, startMock } from '../../tools/process/mock.js';
import { scratchDatabase } from '../../tools/process/scratch-database.js';
import { type ServerProcess, startServer } from '../../tools/process/server.js';

const OTHER_SITE = 'http://127.0.0.1:5173';
const database = scratchDatabase('mock-vs-server-');
let server: ServerProcess;
let publicMock: MockProcess;
let accountMock: MockProcess;
let key: string;

beforeAll(async () => {
  [server, publicMock, accountMock] = await Promise.all([
    startServer({ databasePath: database.path, env: { LOG_LEVEL: 'warn' } }),
    startMock({}),
    startMock({ api: 'account' }),
  ]);
  ({ key } = await makeKey(database.path, 'probe'));
}, 120_000);

afterAll(async () => {
  await Promise.all([server?.stop(), publicMock?.stop(), accountMock?.stop()]);
  database.remove();
});

interface Probe {
  id: string;
  api: 'main' | 'account';
  path: string;
  init: (credential: { key: string }) => RequestInit;
}

const PROBES: Probe[] = [
  { id: 'main: Prefer code=429', api: 'main', path: '/shared', init: ({ key }) => ({ headers: { Authorization: `Bearer ${key}`, Prefer: 'code=429' } }) },
  {
    id: 'main: preflight from another origin',
    api: 'main',
    path: '/shared',
    init: () => ({
      method: 'OPTIONS',
      headers: { Origin: OTHER_SITE, 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'authorization' },
    }),
  },
  {
    id: 'main: read from another origin',
    api: 'main',
    path: '/shared',
    init: ({ key }) => ({ headers: { Authorization: `Bearer ${key}`, Origin: OTHER_SITE } }),
  },
  {
    id: 'account: a write from another site, with a session cookie',
    api: 'account',
    path: '/keys',
    init: () => ({
      method: 'POST',
      headers: { Origin: OTHER_SITE, 'Sec-Fetch-Site': 'cross-site', Cookie: '__Host-session=any', 'Content-Type': 'application/json' },
      body: '{"name":"from elsewhere"}',
    }),
  },
  {
    id: 'account: a write with another Origin only',
    api: 'account',
    path: '/keys',
    init: () => ({ method: 'POST', headers: { Origin: OTHER_SITE, Cookie: '__Host-session=any', 'Content-Type': 'application/json' }, body: '{"name":"x"}' }),
  },
  { id: 'account: a read from another origin', api: 'account', path: '/session', init: () => ({ headers: { Origin: OTHER_SITE } }) },
];

/** What a probe's answer says: its status, and whether a page on another origin may read it. */
async function observe(url: string, probe: Probe): Promise<{ status: number; cors: boolean }> {
  const answer = await fetch(`${url}${probe.path}`, probe.init({ key }));
  await answer.arrayBuffer();
  return { status: answer.status, cors: answer.headers.has('access-control-allow-origin') };
}

describe('the mocks and the server, on what the suite does not send', () => {
  it('differ only where PROBE_DIFFERENCES says why, and each listed difference still occurs', async () => {
    const webUrl = server.webUrl;
    expect(webUrl).toBeDefined();
    const unlisted: string[] = [];
    const listedButEqual: string[] = [];
    for (const probe of PROBES) {
      const [mocked, served] = await Promise.all([
        observe(probe.api === 'main' ? publicMock.url : accountMock.url, probe),
        observe(probe.api === 'main' ? server.url : `${webUrl}/api`, probe),
      ]);
      const listed = PROBE_DIFFERENCES.some((difference) => difference.probe === probe.id);
      const same = mocked.status === served.status && mocked.cors === served.cors;
      if (!same && !listed) unlisted.push(`${probe.id}: the mock answers ${JSON.stringify(mocked)}, the server ${JSON.stringify(served)}`);
      if (same && listed) listedButEqual.push(probe.id);
    }
    expect(unlisted, 'make the mock answer as the server does (src/mock/edge.ts), or list the difference with its reason in PROBE_DIFFERENCES').toEqual([]);
    expect(listedButEqual, 'the mock now answers as the server does: delete these from PROBE_DIFFERENCES').toEqual([]);
    expect(PROBE_DIFFERENCES.map((difference) => difference.probe).filter((id) => !PROBES.some((probe) => probe.id === id))).toEqual([]);
  });
});
