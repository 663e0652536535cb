import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot, readContractPaths } from '../../src/contract/project.js';
import { KNOWN_DIFFERENCES } from '../../src/contract-suite/known-differences.js';
import { formatReport } from '../../src/contract-suite/report.js';
import { runContractSuite, type SuiteReport } from '../../src/contract-suite/run.js';
import { MOCK_DEFAULTS, prismCommand } from '../../src/mock/prism.js';
import { waitForApi } from '../../src/mock/ready.js';
import { freePort } from '../helpers/server-process.js';
import { specWith, writeSpec } from './fixtures/spec-with.js';

/**
 * The mock follows a new operation with no change either: Prism on a copy of the
 * spec with `GET /items/{id}` passes the suite with `--target prism`, and every
 * known difference (including the ones only a path parameter shows) still occurs.
 *
 * Prism is started here on the copy, with `npm run mock`'s command line and
 * another spec file; the shared launcher in test/helpers only serves the real spec.
 */
const spec = specWith('./get-item.yaml');
let prism: ChildProcess | undefined;
let specFile: string | undefined;
let report: SuiteReport;

function stopPrism(): void {
  if (prism?.pid === undefined) return;
  try {
    process.kill(-prism.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

beforeAll(async () => {
  const port = await freePort();
  const { command, args } = prismCommand({ ...MOCK_DEFAULTS, port });
  const real = relative(projectRoot, readContractPaths().spec);
  specFile = writeSpec(spec);
  const child = spawn(command, args.map((arg) => (arg === real ? (specFile as string) : arg)), { cwd: projectRoot, detached: true, stdio: 'ignore' });
  prism = child;
  process.once('exit', stopPrism);
  const url = `http://127.0.0.1:${port}`;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  await waitForApi(url, { stopped: exited, timeoutMs: 60_000, headers: { Authorization: 'Bearer readiness-probe', Prefer: 'code=401' } });
  report = await runContractSuite({ baseUrl: url, token: 'any-token-will-do', target: 'prism', spec });
}, 120_000);

afterAll(() => {
  stopPrism();
  process.off('exit', stopPrism);
  if (specFile) rmSync(dirname(specFile), { recursive: true, force: true });
});

describe('the contract suite against Prism on the spec with GET /items/{id}', () => {
  it('passes with only the listed differences', () => {
    const failed = report.results.filter((result) => result.outcome === 'fail').map((result) => `${result.id}: ${result.findings.map((finding) => finding.message).join('; ')}`);
    expect(failed, formatReport(report)).toEqual([]);
    expect(report.operations.find((operation) => operation.operationId === 'getItem')?.passed).toBeGreaterThan(0);
  });

  it('needs every listed difference: each one is observed', () => {
    const unused = KNOWN_DIFFERENCES.filter((difference) => !report.differencesApplied.includes(difference.id)).map((difference) => difference.id);
    expect(unused, 'a known difference that never occurs should be deleted').toEqual([]);
  });

  it('answers an id that cannot exist with the example, which the listed difference explains', () => {
    const unknown = report.results.find((result) => result.id === 'getItem negative unknown-id path/id');
    expect(unknown).toMatchObject({ outcome: 'pass', status: 200, excused: [expect.objectContaining({ difference: 'prism-every-id-exists' })] });
  });
});
