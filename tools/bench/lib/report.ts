// From the rounds to the table, the target checks and the JSON document.
import type { LoadResult } from './load.js';
import { POSTGRES_SERVER_IDS, type ServerId, SQLITE_PROJECT_IDS } from './servers.js';
import { median } from './stats.js';

export interface ServerRun {
  id: ServerId;
  label: string;
  /** Why the server has no numbers (it did not start, or answered wrongly under load). */
  failure?: string;
  /** Contract checks it failed before the load (see probe.ts); measured anyway. */
  problems: string[];
  responseBytes?: number;
  responseHeaders?: number;
  startupMs?: number;
  rounds: LoadResult[];
}

export interface ServerSummary {
  id: ServerId;
  label: string;
  failure?: string;
  problems: string[];
  responseBytes?: number;
  responseHeaders?: number;
  requestsPerSecond: { median: number; min: number; max: number };
  p50Ms: number;
  p99Ms: number;
  peakRssMiB: number;
  /** Median over rounds of the server's CPU time per answer (all its instances). */
  cpuPerRequestUs: number;
  /** Median over rounds of the database server's CPU time per answer (PostgreSQL rows only). */
  databaseCpuPerRequestUs?: number;
  /** Median over rounds of the load generator's share of its core (see LoadResult). */
  generatorCpuShare: number;
  vsRaw: number;
  vsHono: number;
  non2xx: number;
  errors: number;
  rounds: LoadResult[];
}

export interface TargetCheck {
  target: string;
  actual: string;
  pass: boolean | undefined;
}

export interface Settings {
  connections: number;
  durationSeconds: number;
  warmupSeconds: number;
  rounds: number;
  projectLogLevel: string;
  quick: boolean;
}

export interface BenchReport {
  startedAt: string;
  finishedAt: string;
  machine: { node: string; cpu: string; cores: number; pinning: string };
  settings: Settings;
  request: { method: 'POST'; path: '/'; body: string; headers: string[] };
  notes: string[];
  servers: ServerSummary[];
  targets: TargetCheck[];
  /** PostgreSQL mode against SQLite, and two instances against one, when those rows ran. */
  postgres?: PostgresComparison[];
  /** The account API's sign-in on this project's SQLite server, when that row ran. */
  signIn?: SignInReport;
  /** The metrics' and the tracing's cost, when those rows ran. */
  observability?: ObservabilityComparison[];
}

export interface SignInReport {
  /** The server's CPU time per sign-in, one after the other. */
  cpuPerSignInMs: number;
  /** Median over rounds of the public API's req/s under a flood of sign-ins, over its req/s without, rounds alternating. */
  throughputRatio: number;
  floodClients: number;
  /** Sign-ins answered 200, refused 503, or otherwise, per second of flood. */
  signedInPerSecond: number;
  refusedPerSecond: number;
  otherPerSecond: number;
}

/** A row of this project with some observability on, against the same server without it. */
export interface ObservabilityComparison {
  what: string;
  id: ServerId;
  /** Median of the per-round req/s ratios to the plain row. */
  throughputRatio: number;
  cpuUs: { row: number; baseline: number };
  /** Median of the per-round ratios of CPU per answer to the plain row: steadier than req/s on a busy machine. */
  cpuRatio: number;
  /** Answers that were not 2xx, and errors or timeouts, over every round. */
  failed: number;
  /** Peak RSS of each round, in MiB, and the plain row's peak. */
  roundRssMiB: number[];
  baselineRssMiB: number;
}

export interface PostgresComparison {
  what: string;
  /** Median of the per-round req/s ratios. */
  throughputRatio: number;
  /** CPU per answer of the compared row (servers + database) and of its baseline. */
  cpuUs: { row: number; baseline: number };
}

const MiB = 1024 * 1024;

/**
 * Ratios are taken round by round, between runs seconds apart, and then the median of
 * those is kept: on a shared machine the load drifts between rounds, and a ratio of
 * two neighbours cancels most of that drift where a ratio of two medians would not.
 */
export function ratioTo(
  run: ServerRun,
  base: ServerRun | undefined,
  measure: (round: LoadResult) => number | undefined = (round) => round.requestsPerSecond,
): number {
  if (base === undefined) return Number.NaN;
  const ratios = run.rounds.flatMap((round, index) => {
    const other = base.rounds[index];
    const value = measure(round);
    const baseline = other && measure(other);
    return value !== undefined && baseline !== undefined && baseline > 0 ? [value / baseline] : [];
  });
  return median(ratios);
}

/** The same, for the CPU time per answer. */
export function cpuRatioTo(run: ServerRun, base: ServerRun | undefined): number {
  return ratioTo(run, base, (round) => round.cpuPerRequestUs);
}

export function summarise(runs: ServerRun[]): ServerSummary[] {
  const raw = runs.find((run) => run.id === 'raw');
  const hono = runs.find((run) => run.id === 'hono');
  return runs.map((run) => {
    const rps = run.rounds.map((r) => r.requestsPerSecond);
    const rss = run.rounds.map((r) => r.peakRssBytes).filter((value): value is number => value !== undefined);
    const summary: ServerSummary = {
      id: run.id,
      label: run.label,
      problems: run.problems,
      requestsPerSecond: { median: median(rps), min: Math.min(...rps), max: Math.max(...rps) },
      p50Ms: median(run.rounds.map((r) => r.p50Ms)),
      p99Ms: median(run.rounds.map((r) => r.p99Ms)),
      peakRssMiB: rss.length > 0 ? Math.max(...rss) / MiB : Number.NaN,
      generatorCpuShare: median(run.rounds.map((r) => r.generatorCpuShare)),
      cpuPerRequestUs: median(run.rounds.map((r) => r.cpuPerRequestUs).filter((value): value is number => value !== undefined)),
      vsRaw: ratioTo(run, raw),
      vsHono: ratioTo(run, hono),
      non2xx: run.rounds.reduce((sum, r) => sum + r.non2xx, 0),
      errors: run.rounds.reduce((sum, r) => sum + r.errors + r.timeouts, 0),
      rounds: run.rounds,
    };
    const database = run.rounds.map((r) => r.databaseCpuPerRequestUs).filter((value): value is number => value !== undefined);
    if (database.length > 0) summary.databaseCpuPerRequestUs = median(database);
    if (run.failure !== undefined) summary.failure = run.failure;
    if (run.responseBytes !== undefined) summary.responseBytes = run.responseBytes;
    if (run.responseHeaders !== undefined) summary.responseHeaders = run.responseHeaders;
    return summary;
  });
}

/** The issue's targets for this project's server; `pass` is undefined when a number is missing. */
export function checkTargets(servers: ServerSummary[], signIn?: SignInReport): TargetCheck[] {
  const get = (id: ServerId) => servers.find((server) => server.id === id && server.failure === undefined);
  const project = get('project');
  // Issue 29's targets are for this project as it is deployed: metrics on through OPS_PORT (the `project-metrics` row).
  const deployed = get('project-metrics');
  const hono = get('hono');
  const fastify = get('fastify');
  const express = get('express');
  const postgres = get('project-pg');
  const metrics = deployed;
  const tracing = get('project-tracing');
  const check = (
    target: string,
    value: number | undefined,
    limit: number | undefined,
    atLeast: boolean,
    show: (v: number, l: number) => string,
  ): TargetCheck => {
    if (value === undefined || limit === undefined || !Number.isFinite(value) || !Number.isFinite(limit))
      return { target, actual: 'not measured', pass: undefined };
    return { target, actual: show(value, limit), pass: atLeast ? value >= limit : value <= limit };
  };
  // Project vs Express and Fastify go through their ratios to bare Hono, each taken round by round.
  const vsExpress = deployed && express ? deployed.vsHono / express.vsHono : undefined;
  const vsFastify = deployed && fastify ? deployed.vsHono / fastify.vsHono : undefined;
  const times = (v: number) => `${v.toFixed(2)}x`;
  return [
    check('req/s >= 0.85x bare Hono (metrics on)', deployed?.vsHono, hono ? 0.85 : undefined, true, times),
    check(
      'CPU per answer <= 1.25x bare Hono',
      deployed && hono ? cpuRatioTo(deployed, hono) : undefined,
      1.25,
      false,
      (v) => `${times(v)} (${fixed(deployed?.cpuPerRequestUs ?? Number.NaN, 0)} us vs ${fixed(hono?.cpuPerRequestUs ?? Number.NaN, 0)} us)`,
    ),
    check(
      'p99 <= 1.5x bare Hono p99',
      deployed?.p99Ms,
      mul(hono?.p99Ms, 1.5),
      false,
      (v, l) => `${v.toFixed(2)} ms vs ${(l / 1.5).toFixed(2)} ms (${(v / (l / 1.5)).toFixed(2)}x)`,
    ),
    check('RSS under load <= 110 MiB', deployed?.peakRssMiB, 110, false, (v) => `${v.toFixed(1)} MiB`),
    check('moonshot: req/s >= Fastify + schema', vsFastify, 1, true, times),
    check('req/s >= 5x Express + openapi-validator', vsExpress, 5, true, times),
    check('PostgreSQL mode: req/s >= 0.6x SQLite mode', postgres && project ? ratioTo(postgres, project) : undefined, 0.6, true, times),
    check('metrics on (OPS_PORT): req/s >= 0.95x off', metrics && project ? ratioTo(metrics, project) : undefined, 0.95, true, times),
    check('tracing to no collector: no failed answer', tracing ? tracing.non2xx + tracing.errors : undefined, 0, false, (v) => `${v} failed`),
    // "Cannot starve": this project's own bound, half of what the public API serves without the flood.
    check('sign-in flood: public API keeps >= 0.5x req/s', signIn?.throughputRatio, 0.5, true, times),
  ];
}

function mul(value: number | undefined, factor: number): number | undefined {
  return value === undefined ? undefined : value * factor;
}

export function formatTable(servers: ServerSummary[]): string {
  const header = [
    'server',
    'req/s',
    'min-max',
    'p50 ms',
    'p99 ms',
    'RSS MiB',
    'CPU us/req',
    'DB us/req',
    'gen CPU',
    'x raw',
    'x Hono',
    'non-2xx',
    'body B',
    'headers',
  ];
  const rows = servers.map((s) =>
    s.failure !== undefined
      ? [s.label, 'failed', '', '', '', '', '', '', '', '', '', '', '', '']
      : [
          s.label + (s.problems.length > 0 ? ' (!)' : ''),
          int(s.requestsPerSecond.median),
          `${int(s.requestsPerSecond.min)}-${int(s.requestsPerSecond.max)}`,
          fixed(s.p50Ms, 2),
          fixed(s.p99Ms, 2),
          fixed(s.peakRssMiB, 1),
          fixed(s.cpuPerRequestUs, 0),
          s.databaseCpuPerRequestUs === undefined ? '' : fixed(s.databaseCpuPerRequestUs, 0),
          `${fixed(s.generatorCpuShare * 100, 0)}%`,
          fixed(s.vsRaw, 2),
          fixed(s.vsHono, 2),
          String(s.non2xx + s.errors),
          s.responseBytes === undefined ? '' : String(s.responseBytes),
          s.responseHeaders === undefined ? '' : String(s.responseHeaders),
        ],
  );
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) => cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('  ');
  return [line(header), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map(line)].join('\n');
}

/** The metrics' and the tracing's cost: each row against the plain project row, round by round. */
export function compareObservability(servers: ServerSummary[]): ObservabilityComparison[] {
  const project = servers.find((server) => server.id === 'project' && server.failure === undefined && server.rounds.length > 0);
  if (!project) return [];
  const rows: Array<[string, ServerId]> = [
    ['metrics on (OPS_PORT) / off', 'project-metrics'],
    ['tracing to no collector / off', 'project-tracing'],
  ];
  return rows.flatMap(([what, id]) => {
    const row = servers.find((server) => server.id === id && server.failure === undefined && server.rounds.length > 0);
    if (!row) return [];
    return [
      {
        what,
        id,
        throughputRatio: ratioTo(row, project),
        cpuUs: { row: row.cpuPerRequestUs, baseline: project.cpuPerRequestUs },
        cpuRatio: cpuRatioTo(row, project),
        failed: row.non2xx + row.errors,
        roundRssMiB: row.rounds.map((round) => (round.peakRssBytes ?? Number.NaN) / MiB),
        baselineRssMiB: project.peakRssMiB,
      },
    ];
  });
}

export function formatObservability(comparisons: ObservabilityComparison[]): string | undefined {
  if (comparisons.length === 0) return undefined;
  const lines = comparisons.map(
    (c) =>
      `  ${c.what.padEnd(32)} req/s x${c.throughputRatio.toFixed(3)}   CPU per answer x${c.cpuRatio.toFixed(3)} (${c.cpuUs.row.toFixed(0)} us vs ${c.cpuUs.baseline.toFixed(0)} us)   ` +
      `failed ${c.failed}   peak RSS by round ${c.roundRssMiB.map((value) => value.toFixed(0)).join(', ')} MiB (off: ${c.baselineRssMiB.toFixed(0)})`,
  );
  return [
    'Observability (ratios of neighbouring rounds, median; target: metrics >= 0.95x, tracing to no collector without error and with bounded RSS):',
    ...lines,
  ].join('\n');
}

/** One instance on PostgreSQL against one on SQLite, and two instances against one, as per-round ratios. */
export function comparePostgres(servers: ServerSummary[]): PostgresComparison[] {
  const get = (id: ServerId) => servers.find((server) => server.id === id && server.failure === undefined && server.rounds.length > 0);
  const total = (server: ServerSummary) => server.cpuPerRequestUs + (server.databaseCpuPerRequestUs ?? 0);
  const pairs: Array<[string, ServerId, ServerId]> = [
    ['1 instance on PostgreSQL / 1 on SQLite', 'project-pg', 'project'],
    ['2 instances on PostgreSQL / 1 on PostgreSQL', 'project-pg-x2', 'project-pg'],
  ];
  return pairs.flatMap(([what, rowId, baseId]) => {
    const row = get(rowId);
    const base = get(baseId);
    if (!row || !base) return [];
    return [{ what, throughputRatio: ratioTo(row, base), cpuUs: { row: total(row), baseline: total(base) } }];
  });
}

export function formatPostgres(comparisons: PostgresComparison[]): string | undefined {
  if (comparisons.length === 0) return undefined;
  const lines = comparisons.map(
    (c) =>
      `  ${c.what.padEnd(44)} req/s x${c.throughputRatio.toFixed(2)}   CPU per answer (servers + database) ${c.cpuUs.row.toFixed(0)} us vs ${c.cpuUs.baseline.toFixed(0)} us`,
  );
  return ['PostgreSQL mode (ratios of neighbouring rounds, median):', ...lines].join('\n');
}

export function formatSignIn(signIn: SignInReport | undefined, hashing: { concurrent: number; queued: number }): string | undefined {
  if (!signIn) return undefined;
  return [
    `Sign-in (account API, argon2id): ${signIn.cpuPerSignInMs.toFixed(1)} ms of server CPU per sign-in; at most ${hashing.concurrent} hashed at a time, ${hashing.queued} waiting, more refused with 503`,
    `  public API while ${signIn.floodClients} clients flood sign-in: req/s x${signIn.throughputRatio.toFixed(2)} of without (median of alternating rounds);`,
    `  the flood got ${signIn.signedInPerSecond.toFixed(1)} sign-ins/s, ${signIn.refusedPerSecond.toFixed(1)} refusals/s (503), ${signIn.otherPerSecond.toFixed(1)} other/s`,
  ].join('\n');
}

/** The table of a run as Markdown, for `docs/performance.md` (`writeLatestRun`). */
export function formatMarkdownTable(servers: ServerSummary[]): string {
  const rows = servers.map((s) =>
    s.failure !== undefined
      ? `| ${s.label} | failed | | | | | |`
      : `| ${s.label}${s.problems.length > 0 ? ' (!)' : ''} | ${int(s.requestsPerSecond.median)} | ${fixed(s.vsHono, 2)} | ${fixed(s.p99Ms, 2)} | ${fixed(s.peakRssMiB, 1)} | ${fixed(s.cpuPerRequestUs, 0)}${s.databaseCpuPerRequestUs === undefined ? '' : ` (+${fixed(s.databaseCpuPerRequestUs, 0)} in the database)`} |`,
  );
  return ['| server | req/s | x Hono | p99 ms | RSS MiB | CPU µs/answer |', '|---|---|---|---|---|---|', ...rows].join('\n');
}

export function formatTargets(targets: TargetCheck[]): string {
  return targets.map((t) => `${t.pass === undefined ? 'N/A ' : t.pass ? 'PASS' : 'MISS'}  ${t.target.padEnd(44)} ${t.actual}`).join('\n');
}

/**
 * The same comparison by CPU time per answer, which other load on a shared machine
 * disturbs far less than req/s: what the throughput ratio would be on a quiet machine.
 */
export function formatCpuComparison(servers: ServerSummary[]): string | undefined {
  const project = servers.find((s) => s.id === 'project' && s.failure === undefined);
  const peers = servers.filter(
    (s) => !SQLITE_PROJECT_IDS.includes(s.id) && !POSTGRES_SERVER_IDS.includes(s.id) && s.failure === undefined && Number.isFinite(s.cpuPerRequestUs),
  );
  if (!project || !Number.isFinite(project.cpuPerRequestUs) || peers.length === 0) return undefined;
  const lines = peers.map(
    (peer) =>
      `  ${peer.label.padEnd(28)} ${peer.cpuPerRequestUs.toFixed(0).padStart(5)} us  -> this project does ${(peer.cpuPerRequestUs / project.cpuPerRequestUs).toFixed(2)}x its req/s per CPU`,
  );
  return [`CPU per answer: this project ${project.cpuPerRequestUs.toFixed(0)} us; peers:`, ...lines].join('\n');
}

const int = (value: number) => (Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : '-');
const fixed = (value: number, digits: number) => (Number.isFinite(value) ? value.toFixed(digits) : '-');
