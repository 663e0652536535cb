import getPort from 'get-port';
import { describe, expect, it } from 'vitest';
import { exitCodeFor } from '../../src/cli/exit.js';
import { bufferedIo } from '../../src/cli/io.js';
import { readOperations } from '../../src/contract/operations.js';
import { loadSpec } from '../../src/contract/spec.js';
import { parseContractArgs } from '../../src/contract-suite/cli-options.js';
import { runContract } from '../../src/contract-suite/command.js';
import type { SuiteReport } from '../../src/contract-suite/run.js';
import { tsxCommand } from '../../tools/process/commands.js';
import { makeKey } from '../../tools/process/make-key.js';
import { runCommand } from '../../tools/process/run-command.js';
import { sharedService } from '../helpers/services.js';

/** `npm run contract -- ...` as a process, without npm in between; API_KEY only when the test sets it. */
function contractProcess(args: string[], env: Record<string, string> = {}) {
  return runCommand(tsxCommand('src/contract-suite/main.ts', args), { env: { API_KEY: undefined, ...env }, timeoutMs: 120_000 });
}

/** The same command in this process (what `main.ts` runs), its output kept: a process costs a second of CPU to start. */
async function contract(args: string[]) {
  const io = bufferedIo();
  const code = await runContract(args, io);
  return { code, stdout: io.stdout(), stderr: io.stderr() };
}

/**
 * What the runs against the mock are about (the report, known differences, exit codes) is the derived cases'; the
 * phases against the mock are proven in phases-on-processes.slow.test.ts. The run against the implementation keeps
 * `npm run contract`'s defaults, phases included.
 */
const NO_PHASES = ['--examples', '0', '--no-stateful'];

// Started once for the run by test/global-setup.ts.
const mock = await sharedService('mock');
const server = await sharedService('server');

// Against the shared mock and server (with its own key where it needs one), side by side; one case runs the command as a process.
describe('npm run contract', { concurrent: true }, () => {
  it('exits 0 against the implementation, with a report per operation and a progress line on stderr', async () => {
    const { key } = await makeKey(server.databasePath, 'demo');
    const result = await contract(['--base-url', server.url, '--token', key]);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^Contract suite: Bearer List API \S+ against http:\/\/127\.0\.0\.1:\d+ \(target: implementation\)$/m);
    const operations = readOperations(loadSpec());
    for (const { operationId, method, path } of operations) expect(result.stdout).toContain(`\n${operationId}  ${method} ${path}\n`);
    expect(result.stdout).toMatch(/^ {2}ok {4}negative {2}unknown key \(well-formed\) +401$/m);
    expect(result.stdout).toMatch(/^\d+ checks: \d+ passed, 0 failed, 0 skipped; \d+ requests in [\d.]+ s\.$/m);
    expect(result.stdout).toMatch(new RegExp(`^Operations \\(${operations.length}\\):\n {2}listOwnItems +POST / +(\\d+) cases: \\1 passed$`, 'm'));
    expect(result.stdout.trimEnd().split('\n').at(-1)).toBe('PASSED: no contract violations.');
    expect(result.stderr).toMatch(/^\[ *1\/\d+\] listOwnItems: /m);
    expect(result.stdout + result.stderr).not.toContain(key);
  });

  it('exits 0 against the mock with --target prism and names the differences it allowed', async () => {
    const result = await contract(['--base-url', mock.url, '--token', 'anything', '--target', 'prism', ...NO_PHASES]);
    expect(result.code, result.stdout).toBe(0);
    expect(result.stdout).toMatch(/^ {2}ok\* {3}negative {2}unknown key \(well-formed\) +200 {2}known difference: prism-accepts-any-token$/m);
    expect(result.stdout).toContain('Known differences for prism (src/contract-suite/known-differences.ts):');
  });

  it('exits 1 on a violation, with the reason, the offending request and a hint when the target looks like the mock', async () => {
    const result = await contract(['--base-url', mock.url, '--token', 'anything', ...NO_PHASES]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^ {2}FAIL {2}negative {2}unknown key \(well-formed\) +200$/m);
    expect(result.stdout).toContain('- [status] expected 401, got 200: the invalid request was accepted');
    expect(result.stdout).toMatch(
      /request: {2}curl -i -X POST 'http:\/\/127\.0\.0\.1:\d+\/' -H 'Authorization: Bearer tka_\w+' -H 'Content-Type: application\/json' -H 'Accept: application\/json, application\/problem\+json' --data-raw '\{\}'/,
    );
    expect(result.stdout).toContain('Hint: The answers carry Prism');
    expect(result.stdout).toMatch(/FAILED: \d+ checks found a contract violation\.\n$/);
  });

  it('prints the report as JSON with --json, taking the key from API_KEY, as a process', async () => {
    const result = await contractProcess(['--base-url', mock.url, '--target', 'prism', '--json', ...NO_PHASES], { API_KEY: 'anything' });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/^\[ *1\/\d+\] listOwnItems: /m);
    const report = JSON.parse(result.stdout) as SuiteReport;
    expect(report).toMatchObject({ target: 'prism', summary: { failed: 0 } });
    expect(report.results[0]).toMatchObject({ operationId: 'listOwnItems', outcome: 'pass', request: { headers: { Authorization: 'Bearer $API_KEY' } } });
  });

  it('exits 2 when nothing answers at the URL, without sending the other requests', async () => {
    const result = await contract(['--base-url', `http://127.0.0.1:${await getPort()}`, '--token', 'anything']);
    expect(result.code).toBe(2);
    expect(result.stdout).toMatch(/Could not reach http:\/\/127\.0\.0\.1:\d+: no answer: .*ECONNREFUSED/);
  });
});

// The usage of the command, in-process: the cases above run it as a process.
describe('npm run contract, bad usage', () => {
  it.each([
    { given: ['--token', 'x'], want: "required option '--base-url <url>' not specified" },
    { given: ['--base-url', 'http://127.0.0.1:1'], want: 'give a credential: --token <key> (or API_KEY), or --credential <scheme>=<value>' },
    { given: ['--base-url', 'localhost:3000', '--token', 'x'], want: 'must be an absolute http(s) URL' },
    {
      given: ['--base-url', 'http://127.0.0.1:1', '--token', 'x', '--target', 'staging'],
      want: "argument 'staging' is invalid. Allowed choices are implementation, prism",
    },
    { given: ['--base-url', 'http://127.0.0.1:1', '--token', ''], want: 'must be a non-empty API key' },
    { given: ['--base-url', 'http://127.0.0.1:1', '--token', 'x', '--max-pages', '0'], want: 'must be a positive integer' },
    { given: ['--base-url', 'http://127.0.0.1:1', '--token', 'x', '--frobnicate'], want: "unknown option '--frobnicate'" },
  ])('exits 2 on bad usage: $given', ({ given, want }) => {
    let written = '';
    const writeErr = (text: string) => {
      written += text;
    };
    let code = 0;
    try {
      parseContractArgs(given, writeErr);
    } catch (error) {
      code = exitCodeFor('contract', error, writeErr);
    }
    expect(code).toBe(2);
    expect(written).toContain(want);
  });
});
