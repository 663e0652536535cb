/**
 * The phases as `npm run contract` runs them (20 examples, the stateful phase), against real processes:
 * the server and its Prism mock for both contracts. No phase may report what is not a fault: every run
 * passes, with the property phase's checks among its results. (The faults it must find are in
 * faults.slow.test.ts, stateful.slow.test.ts and account-writes.slow.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSpec } from '../../src/contract/spec.js';
import { formatReport } from '../../src/contract-suite/report.js';
import { runContractSuite, type SuiteOptions, type SuiteReport } from '../../src/contract-suite/run.js';
import { type MockProcess, startMock } from '../../tools/process/mock.js';
import { scratchDatabase } from '../../tools/process/scratch-database.js';
import { type ServerProcess, startServer } from '../../tools/process/server.js';
import { sharedService } from '../helpers/services.js';
import { accountSpec } from '../helpers/web-app.js';

const database = scratchDatabase('phases-');
let server: ServerProcess;
let accountMock: MockProcess;
let webUrl = '';
let session = '';

beforeAll(async () => {
  [server, accountMock] = await Promise.all([startServer({ databasePath: database.path, env: { LOG_LEVEL: 'warn' } }), startMock({ api: 'account' })]);
  webUrl = server.webUrl;
  const signUp = await fetch(`${webUrl}/api/users`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'phases-owner', password: 'a password for the phases' }),
  });
  expect(signUp.status).toBe(201);
  session = /^session=([^;]+)/.exec(signUp.headers.get('set-cookie') ?? '')?.[1] ?? '';
}, 120_000);

afterAll(async () => {
  await Promise.all([server?.stop(), accountMock?.stop()]);
  database.remove();
});

async function run(options: Omit<SuiteOptions, 'examples' | 'stateful' | 'seed'>): Promise<SuiteReport> {
  return runContractSuite({ ...options, examples: 20, seed: 31, stateful: true });
}

function expectClean(report: SuiteReport): void {
  const failures = report.results.filter((result) => result.outcome === 'fail').map((result) => `${result.id}: ${result.findings[0]?.message ?? ''}`);
  expect(failures, formatReport(report)).toEqual([]);
  expect(report.results.some((result) => result.family === 'property-invalid' && result.outcome === 'pass')).toBe(true);
}

describe('the phases against real processes', () => {
  it('find nothing in the public API, served by the server and by Prism', async () => {
    const [mock, shared] = await Promise.all([sharedService('mock'), sharedService('server')]);
    const spec = loadSpec();
    expectClean(await run({ baseUrl: shared.url, token: shared.demoKey, spec }));
    expectClean(await run({ baseUrl: mock.url, token: 'any-token', spec, target: 'prism' }));
  });

  it('find nothing in the account API, served by the web application and by Prism', async () => {
    expectClean(await run({ baseUrl: `${webUrl}/api`, token: session, spec: accountSpec }));
    expectClean(await run({ baseUrl: accountMock.url, token: 'any-session', spec: accountSpec, target: 'prism' }));
  });
});
