/**
 * The stateful mock held to the same contract as the server: the contract suite, with its writes and its
 * stateful phase on, against `npm run mock -- --api account --stateful` (`--target stateful-mock`). The
 * lifecycle create → read → change → delete → read passes as against the server; a throwaway account signs
 * up, and its sign-out ends its session. Only the differences listed for the stateful mock are excused, and
 * each of them is still needed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KNOWN_DIFFERENCES } from '../../src/contract-suite/known-differences.js';
import { runContractSuite, type SuiteReport } from '../../src/contract-suite/run.js';
import { type MockProcess, startMock } from '../../tools/process/mock.js';
import { accountSpec } from '../helpers/web-app.js';

let mock: MockProcess | undefined;
let report: SuiteReport;

beforeAll(async () => {
  mock = await startMock({ api: 'account', stateful: true });
  report = await runContractSuite({
    baseUrl: mock.url,
    token: 'any-session-token',
    spec: accountSpec,
    target: 'stateful-mock',
    allowWrites: true,
    stateful: true,
  });
}, 120_000);

afterAll(async () => {
  await mock?.stop();
});

const outcome = (family: string, operationId: string) =>
  report.results.filter((result) => result.family === family && result.operationId === operationId).map((result) => [result.outcome, result.note]);

describe('the contract suite against the stateful mock of the account API', () => {
  it('says at start which operations are stateful and which are examples', () => {
    const started = mock?.stdout() ?? '';
    expect(started).toMatch(/From what was made: signUp, getSession, signIn, signOut, changePassword, endSession, listKeys, createKey, removeKey, revokeKey$/m);
    expect(started).toMatch(/Examples, but 404 once the item is gone: rollKey$/m);
    expect(started).toMatch(/The spec's examples: listSessions, listKeyEvents$/m);
  });

  it('passes, writes and stateful phase on, with only the differences listed for the stateful mock', () => {
    const failures = report.results
      .filter((result) => result.outcome === 'fail')
      .map((result) => `${result.id}: ${result.findings.map((finding) => finding.message).join('; ')}`);
    expect(failures).toEqual([]);
    expect(report.target).toBe('stateful-mock');
  });

  it('follows a key from create to gone, as against the server', () => {
    expect(outcome('stateful', 'createKey')).toEqual([['pass', expect.stringMatching(/^created key_\w+ → .*removeKey 204 → gone$/)]]);
    expect(outcome('stateful', 'signUp')).toEqual([['pass', expect.stringContaining('signed up a throwaway account')]]);
    expect(outcome('write-effect', 'signOut')).toEqual([['pass', 'answered 204; the ended credential is refused afterwards']]);
  });

  it('keeps the session through a password change, as the server keeps this one (it answers with a new device cookie only)', async () => {
    if (!mock) throw new Error('no mock');
    const url = mock.url;
    const signUp = await fetch(`${url}/users`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'changer', password: 'granite tulip seventy otter' }),
    });
    expect(signUp.status).toBe(201);
    const cookie =
      signUp.headers
        .getSetCookie()
        .find((header) => /^(__Host-)?session=/.test(header))
        ?.split(';')[0] ?? '';
    const change = await fetch(`${url}/password`, {
      method: 'PUT',
      headers: { Cookie: cookie, 'Content-Type': 'application/json' },
      body: JSON.stringify({ currentPassword: 'granite tulip seventy otter', newPassword: 'orbit velvet lantern quietly' }),
    });
    expect(change.status).toBe(204);
    const session = await fetch(`${url}/session`, { headers: { Cookie: cookie } });
    expect(session.status).toBe(200);
    expect(((await session.json()) as { user: { name: string } }).user.name).toBe('changer');
  });

  it('forgets what was made on SIGHUP and on POST /__mock/reset, as its start message says', async () => {
    if (!mock) throw new Error('no mock');
    const url = mock.url;
    expect(mock.stdout()).toContain(`\`POST ${url}/__mock/reset\` or \`kill -HUP ${mock.pid}\` forgets it.`);
    const names = async () => {
      const answer = await fetch(`${url}/keys?limit=100`, { headers: { Cookie: '__Host-session=forgetful' } });
      return ((await answer.json()) as { keys: Array<{ name: string }> }).keys.map((key) => key.name);
    };
    const make = () =>
      fetch(`${url}/keys`, {
        method: 'POST',
        headers: { Cookie: '__Host-session=forgetful', 'Content-Type': 'application/json' },
        body: '{"name":"forget me"}',
      });
    expect((await make()).status).toBe(201);
    expect(await names()).toContain('forget me');
    mock.signal('SIGHUP');
    await expect.poll(names).not.toContain('forget me');
    await make();
    expect(await names()).toContain('forget me');
    expect((await fetch(`${url}/__mock/reset`, { method: 'POST' })).status).toBe(204);
    expect(await names()).not.toContain('forget me');
  });

  it('needs every difference it lists for the stateful mock', () => {
    const listed = KNOWN_DIFFERENCES.filter((difference) => difference.target === 'stateful-mock').map((difference) => difference.id);
    expect(listed.length).toBeGreaterThan(0);
    expect(listed.filter((id) => !report.differencesApplied.includes(id))).toEqual([]);
  });
});
