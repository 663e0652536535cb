/**
 * The contract suite on the second contract: the account API, under a session
 * cookie, run against the web application (`npm start`'s process) and against
 * the Prism mock of `openapi/account.yaml`. Positive cases of its writes (sign
 * up, sign in, keys) are skipped as for any live service; the browser and
 * in-process tests cover them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readOperations } from '../../src/contract/operations.js';
import { disagreements, runContractSuite, type SuiteReport } from '../../src/contract-suite/run.js';
import { type MockProcess, startMock } from '../../tools/process/mock.js';
import { sharedService } from '../helpers/services.js';
import { accountSpec } from '../helpers/web-app.js';

let mock: MockProcess;
let implementation: SuiteReport;
let prism: SuiteReport;

beforeAll(async () => {
  // The run's shared server (`npm start`'s process, test/global-setup.ts) rather than one of this file's own: a start
  // costs seconds of CPU, and no other file uses its web application, so this file's one sign-up and the suite's
  // refused sessions meet the same budgets as on a server of its own.
  const [shared, mocked] = await Promise.allSettled([sharedService('server'), startMock({ api: 'account' })]);
  if (mocked.status === 'fulfilled') mock = mocked.value;
  if (shared.status === 'rejected') throw shared.reason;
  if (mocked.status === 'rejected') throw mocked.reason;
  const { webUrl } = shared.value;
  // A session as the pages get one: sign up, keep the cookie's token; a key so that lists have an entry.
  const signUp = await fetch(`${webUrl}/api/users`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    // A name of this run's own: the shared server outlives a rerun of this file in watch mode.
    body: JSON.stringify({ name: `contract-suite-${Date.now().toString(36)}`, password: 'a password for the suite' }),
  });
  expect(signUp.status).toBe(201);
  const token = /^session=([^;]+)/.exec(signUp.headers.get('set-cookie') ?? '')?.[1] ?? '';
  const key = await fetch(`${webUrl}/api/keys`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Cookie: `session=${token}` },
    body: '{"name":"suite"}',
  });
  expect(key.status).toBe(201);
  [implementation, prism] = await Promise.all([
    runContractSuite({ baseUrl: `${webUrl}/api`, token, spec: accountSpec }),
    runContractSuite({ baseUrl: mock.url, token: 'any-session-token', spec: accountSpec, target: 'prism' }),
  ]);
}, 120_000);

afterAll(async () => {
  await mock?.stop();
});

const failures = (report: SuiteReport) =>
  report.results.filter((result) => result.outcome === 'fail').map((result) => `${result.id}: ${result.findings.map((finding) => finding.message).join('; ')}`);

describe('the contract suite on the account API', () => {
  it('passes against the web application, with the session cookie the contract names, on every operation', () => {
    expect(failures(implementation)).toEqual([]);
    const operations = readOperations(accountSpec);
    expect(implementation.operations.map((operation) => operation.operationId).sort()).toEqual(operations.map((operation) => operation.operationId).sort());
    for (const operation of implementation.operations) expect(operation.passed, operation.operationId).toBeGreaterThan(0);
    const passed = (family: string) =>
      implementation.results.filter((result) => result.family === family && result.outcome === 'pass').map((result) => result.operationId);
    // Every operation under the cookie refuses each of the five missing or bad sessions with 401.
    expect(passed('unknown-key').sort()).toEqual(
      operations
        .filter((operation) => operation.security.length > 0)
        .map((operation) => operation.operationId)
        .sort(),
    );
    // The reads answer 200 with a real session; an id that is not the caller's gets 404.
    expect(implementation.results.filter((result) => result.polarity === 'positive' && result.outcome === 'pass').map((result) => result.operationId)).toEqual(
      expect.arrayContaining(['getSession', 'listKeys', 'listKeyEvents', 'listSessions']),
    );
    // Every operation with a path parameter and a documented 404 gets one.
    expect(passed('unknown-id').sort()).toEqual(
      operations
        .filter((operation) => operation.parameters.some((parameter) => parameter.in === 'path') && '404' in operation.responses)
        .map((operation) => operation.operationId)
        .sort(),
    );
  });

  it('passes against the Prism mock, allowing only the listed known differences', () => {
    expect(failures(prism)).toEqual([]);
  });

  it('gets the same status from both for every case, unless a known difference explains it', () => {
    expect(disagreements(implementation, prism)).toEqual([]);
  });
});
