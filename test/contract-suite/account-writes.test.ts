/**
 * Issue 35, item 4: in `npm test`, the account suite runs with `--allow-writes` and the stateful phase against the
 * tests' throwaway web application (in-process, `fixtures/account-suite.ts`), so a write that does nothing fails it.
 * A `PATCH /keys/{keyId}` that answered the new name and kept the old one passed every test before. The cases that
 * plant other lying answers (a create's, a sign-out's) stay in `account-writes.slow.test.ts`.
 */
import { describe, expect, it } from 'vitest';
import { formatReport } from '../../src/contract-suite/report.js';
import { accountSpec } from '../helpers/web-app.js';
import { accountSuite, failures, findingsOf, renameKey, result } from './fixtures/account-suite.js';
import { specWith } from './fixtures/spec-with.js';

/**
 * The account spec with the rename, and only the key operations: the lifecycle of a key is all these runs are about,
 * and the whole run above already holds the rest (a third of the cases, so `npm test` stays quick).
 */
const withRename = (() => {
  const spec = specWith('./rename-key.yaml', accountSpec);
  spec.paths = Object.fromEntries(Object.entries(spec.paths).filter(([path]) => path.startsWith('/keys')));
  return spec;
})();
const LIFECYCLE = 'createKey positive stateful lifecycle';

describe('the account API with --allow-writes and the stateful phase, in npm test', () => {
  it('runs every write once, in a safe order, under a throwaway account, and leaves the given session signed in', async () => {
    const { report, stillSignedIn } = await accountSuite();
    expect(failures(report), formatReport(report)).toEqual([]);
    expect(stillSignedIn).toBe(200);
    // Every write of the account API was sent and accepted: none is left skipped.
    const writes = report.results.filter((entry) => entry.family === 'stateful' || entry.family === 'write-effect');
    expect(writes.map((entry) => `${entry.id}: ${entry.outcome}`)).toEqual([
      'signUp positive stateful throwaway account: pass',
      'createKey positive stateful lifecycle: pass',
      'changePassword positive write-effect: pass',
      'endSession positive write-effect: pass',
      'signOut positive write-effect: pass',
    ]);
    expect(result(report, LIFECYCLE)?.note).toMatch(/^created key_\w+ → revokeKey 200 → .*removeKey 204 → gone$/);
    // Nothing after the writes is a cascade: no case of the run was answered 401 where it expected anything else.
    const cascade = report.results.filter((entry) => entry.status === 401 && entry.expectedStatus !== 401 && entry.outcome !== 'skip');
    expect(cascade.map((entry) => entry.id)).toEqual([]);
  }, 60_000);

  it('finds a PATCH /keys/{keyId} rename that answers the new name but keeps the old one', async () => {
    const { report } = await accountSuite(renameKey({ keeps: false }), { spec: withRename });
    expect(result(report, LIFECYCLE)?.outcome).toBe('fail');
    const [, sent, kept] =
      /renameKey was sent name ("(?:[^"\\]|\\.)*"), but key_\w+ reads back name ("(?:[^"\\]|\\.)*")$/m.exec(findingsOf(report, LIFECYCLE) ?? '') ?? [];
    expect(sent).toBeDefined();
    expect(sent).not.toBe(kept);
  }, 60_000);

  it('passes the same rename once it keeps the name (the finding above is about the rename, not the wrapper)', async () => {
    const { report } = await accountSuite(renameKey({ keeps: true }), { spec: withRename });
    expect(result(report, LIFECYCLE), findingsOf(report, LIFECYCLE)).toMatchObject({ outcome: 'pass', note: expect.stringMatching(/→ renameKey 200 →/) });
  }, 60_000);
});
