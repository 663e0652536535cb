/**
 * The mock and the server, side by side, on what the contract suite's cases do not send: a header only
 * the mock honours, a browser's preflight, a write from another site, and what the stateful mock of the
 * account API remembers (a sign-up's session, a key's life, another user's view). Each probe goes to both;
 * a difference must be listed (PROBE_DIFFERENCES in src/contract-suite/known-differences.ts, with its
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
    startMock({ api: 'account', stateful: true }),
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

/** A sequence of requests to one API root whose outcome is compared as a whole: what it shows, step by step. */
interface SequenceProbe {
  id: string;
  api: 'account';
  run: (root: string) => Promise<string[]>;
}

const PASSWORD = 'orbit velvet lantern quietly';
let users = 0;

/** Signs a fresh user up at `root` and answers its session cookie as a Cookie header (`session=` or `__Host-session=`, as set). */
async function signUp(root: string): Promise<{ name: string; cookie: string }> {
  users += 1;
  const name = `probe-${users}-${Date.now().toString(36)}`;
  const answer = await fetch(`${root}/users`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ name, password: PASSWORD }),
  });
  await answer.arrayBuffer();
  const cookie = (answer.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
  if (answer.status !== 201 || cookie === '') throw new Error(`sign-up at ${root} answered ${answer.status}`);
  return { name, cookie };
}

async function call(root: string, cookie: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const headers: Record<string, string> = { Cookie: cookie };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const answer = await fetch(`${root}${path}`, { method, headers, ...(body !== undefined && { body: JSON.stringify(body) }) });
  const text = await answer.text();
  return { status: answer.status, body: text === '' ? undefined : JSON.parse(text) };
}

type Key = { id: string; name: string; status: string };
const keysOf = async (root: string, cookie: string) => ((await call(root, cookie, 'GET', '/keys?limit=100')).body as { keys: Key[] }).keys;

const SEQUENCES: SequenceProbe[] = [
  {
    id: 'account: who signs up is who is signed in',
    api: 'account',
    run: async (root) => {
      const { name, cookie } = await signUp(root);
      const session = await call(root, cookie, 'GET', '/session');
      return [`session ${session.status}`, `names the user: ${(session.body as { user: { name: string } }).user.name === name}`];
    },
  },
  {
    id: "account: a key's life: made, listed by name, revoked, removed, gone",
    api: 'account',
    run: async (root) => {
      const { cookie } = await signUp(root);
      const made = await call(root, cookie, 'POST', '/keys', { name: 'probe-key-xyz' });
      const id = (made.body as { key: Key }).key.id;
      const listed = (await keysOf(root, cookie)).find((key) => key.id === id);
      const revoked = await call(root, cookie, 'POST', `/keys/${id}/revoke`);
      const after = (await keysOf(root, cookie)).find((key) => key.id === id);
      const removed = await call(root, cookie, 'DELETE', `/keys/${id}`);
      const again = await call(root, cookie, 'DELETE', `/keys/${id}`);
      const other = await signUp(root);
      const seen = (await keysOf(root, other.cookie)).some((key) => key.name === 'probe-key-xyz');
      return [
        `create ${made.status}`,
        `listed as ${listed?.name} ${listed?.status}`,
        `revoke ${revoked.status} ${(revoked.body as Key).status}`,
        `listed ${after?.status}`,
        `remove ${removed.status}`,
        `remove again ${again.status}`,
        `another user sees it: ${seen}`,
      ];
    },
  },
  {
    id: "account: a new user's keys",
    api: 'account',
    run: async (root) => {
      const { cookie } = await signUp(root);
      return [`keys ${(await keysOf(root, cookie)).length}`];
    },
  },
  {
    id: 'account: an active key removed, a revoked key rolled',
    api: 'account',
    run: async (root) => {
      const { cookie } = await signUp(root);
      const id = ((await call(root, cookie, 'POST', '/keys', { name: 'still active' })).body as { key: Key }).key.id;
      const removed = await call(root, cookie, 'DELETE', `/keys/${id}`);
      await call(root, cookie, 'POST', `/keys/${id}/revoke`);
      const rolled = await call(root, cookie, 'POST', `/keys/${id}/roll`, {});
      return [`remove active ${removed.status}`, `roll revoked ${rolled.status}`];
    },
  },
  {
    id: 'account: a body sent to operations that take none is refused, and nothing is done',
    api: 'account',
    run: async (root) => {
      const { cookie } = await signUp(root);
      const id = ((await call(root, cookie, 'POST', '/keys', { name: 'kept' })).body as { key: Key }).key.id;
      const revoke = await call(root, cookie, 'POST', `/keys/${id}/revoke`, { x: 1 });
      const remove = await call(root, cookie, 'DELETE', `/keys/${id}`, { x: 1 });
      // The key itself (the stateful mock's world also holds the spec's example keys, PROBE_DIFFERENCES says why).
      const kept = (await keysOf(root, cookie)).find((key) => key.id === id);
      return [`revoke ${revoke.status} ${(revoke.body as { type?: string })?.type}`, `remove ${remove.status}`, `the key ${kept?.status ?? 'gone'}`];
    },
  },
  {
    id: 'account: signed out, the session is refused',
    api: 'account',
    run: async (root) => {
      const { cookie } = await signUp(root);
      const out = await call(root, cookie, 'DELETE', '/session');
      const after = await call(root, cookie, 'GET', '/session');
      return [`sign out ${out.status}`, `then ${after.status}`];
    },
  },
];

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
    for (const probe of SEQUENCES) {
      const [mocked, served] = await Promise.all([probe.run(accountMock.url), probe.run(`${webUrl}/api`)]);
      const listed = PROBE_DIFFERENCES.some((difference) => difference.probe === probe.id);
      const same = JSON.stringify(mocked) === JSON.stringify(served);
      if (!same && !listed) unlisted.push(`${probe.id}: the mock shows ${JSON.stringify(mocked)}, the server ${JSON.stringify(served)}`);
      if (same && listed) listedButEqual.push(probe.id);
    }
    expect(unlisted, 'make the mock answer as the server does (src/mock/edge.ts), or list the difference with its reason in PROBE_DIFFERENCES').toEqual([]);
    expect(listedButEqual, 'the mock now answers as the server does: delete these from PROBE_DIFFERENCES').toEqual([]);
    const ids = [...PROBES, ...SEQUENCES].map((probe) => probe.id);
    expect(PROBE_DIFFERENCES.map((difference) => difference.probe).filter((id) => !ids.includes(id))).toEqual([]);
  });
});
