// Runs `npm run bench -- --quick` as a real process so the harness cannot rot; no timing is asserted.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { BenchReport } from '../../../tools/bench/lib/report.js';
import { SERVER_IDS } from '../../../tools/bench/lib/servers.js';
import { tsxCommand } from '../../../tools/process/commands.js';
import { runCommand } from '../../../tools/process/run-command.js';

const scratch = mkdtempSync(join(tmpdir(), 'bench-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the benchmark harness in --quick mode', () => {
  it('measures every server (this project on SQLite, on PostgreSQL, and two instances on PostgreSQL among them) and writes a row of positive numbers for each', async () => {
    const out = join(scratch, 'report.json');
    const result = await runCommand(tsxCommand('tools/bench/run.ts', ['--quick', '--out', out]), { timeoutMs: 110_000 });
    expect(result.code, result.stderr + result.stdout).toBe(0);

    const report = JSON.parse(readFileSync(out, 'utf8')) as BenchReport;
    expect(report.servers.map((server) => server.id)).toEqual([...SERVER_IDS]);
    for (const server of report.servers) {
      expect({ id: server.id, failure: server.failure, problems: server.problems }).toEqual({ id: server.id, failure: undefined, problems: [] });
      expect(server.rounds.length).toBeGreaterThan(0);
      for (const value of [
        server.requestsPerSecond.median,
        server.p50Ms,
        server.p99Ms,
        server.peakRssMiB,
        server.cpuPerRequestUs,
        server.vsRaw,
        server.vsHono,
      ]) {
        expect(value, server.id).toBeGreaterThan(0);
      }
    }
    expect(report.targets).toHaveLength(10);
    expect(report.signIn?.cpuPerSignInMs).toBeGreaterThan(0);
    expect(report.signIn?.throughputRatio).toBeGreaterThan(0);
    // PostgreSQL mode: the database's CPU is counted, and both ratios come from the same run.
    for (const id of ['project-pg', 'project-pg-x2']) {
      expect(report.servers.find((server) => server.id === id)?.databaseCpuPerRequestUs, id).toBeGreaterThanOrEqual(0);
    }
    expect(report.postgres?.map((comparison) => comparison.what)).toEqual([
      '1 instance on PostgreSQL / 1 on SQLite',
      '2 instances on PostgreSQL / 1 on PostgreSQL',
    ]);
    for (const comparison of report.postgres ?? []) expect(comparison.throughputRatio).toBeGreaterThan(0);
    // The observability rows: metrics on against off, tracing to no collector (every export failing) without a failed answer.
    expect(report.observability?.map((comparison) => comparison.id)).toEqual(['project-metrics', 'project-tracing']);
    for (const comparison of report.observability ?? []) expect(comparison.throughputRatio).toBeGreaterThan(0);
    expect(report.observability?.find((comparison) => comparison.id === 'project-tracing')?.failed).toBe(0);
    expect(result.stdout).toMatch(/^(PASS|MISS) {2}req\/s >= 0\.85x bare Hono \(metrics on\)/m);
    expect(result.stdout).toMatch(/^(PASS|MISS) {2}metrics on \(OPS_PORT\): req\/s >= 0\.95x off/m);
  }, 120_000);
});
