import { createRequire } from 'node:module';
import { ResponseChecker } from '../../src/contract/response-checker.js';
import { compileSpecSchema, createSpecAjv } from '../../src/contract/schemas.js';
import { loadSpec } from '../../src/contract/spec.js';
import { generateApiKey } from '../../src/keys/api-key.js';
import { readRssBytes } from '../process/resource-usage.js';
import { type SlowClientsReport, startSlowClients } from './slow-clients.js';

/** The part of autocannon's library API the soak uses (autocannon ships no types). */
interface AutocannonRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  setupRequest?: (request: AutocannonRequest, context: Record<string, unknown>) => AutocannonRequest;
  onResponse?: (status: number, body: string | Buffer, context: Record<string, unknown>, headers: Record<string, string>) => void;
}
interface AutocannonResult {
  errors: number;
  timeouts: number;
  non2xx: number;
  mismatches: number;
  latency: { p50: number; p99: number; average: number; max: number };
  requests: { total: number; average: number; sent: number };
  statusCodeStats: Record<string, { count: number }>;
}
interface AutocannonInstance {
  on(event: 'reqError' | 'response', listener: (...args: never[]) => void): this;
  stop(): void;
}
type Autocannon = (options: Record<string, unknown>, done: (error: Error | null, result: AutocannonResult) => void) => AutocannonInstance;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

export interface SoakOptions {
  /** Root URL of the API. */
  url: string;
  /** A valid API key for it. */
  token: string;
  durationSeconds: number;
  connections: number;
  /** Slow clients (slow headers, slow bodies, idle connections, unfinished GET bodies) beside the load; 0 for none. */
  slowClients: number;
  /** Process to read RSS from (/proc/<pid>/status), when known. */
  pid?: number;
  /** Called about once a second while the load runs. */
  onProgress?: (elapsedSeconds: number, requests: number) => void;
}

export interface SoakReport {
  url: string;
  durationSeconds: number;
  connections: number;
  requests: number;
  requestsPerSecond: number;
  /** Answers by status code. */
  statuses: Record<string, number>;
  serverErrors: number;
  /** Connection errors (resets, refusals, timeouts, connections closed without an answer), by code. */
  socketErrors: Record<string, number>;
  socketErrorCount: number;
  timeouts: number;
  /** Answers that break the contract (undocumented status, invalid body), with up to five examples. */
  contractViolations: number;
  violationExamples: string[];
  latencyMs: { p50: number; p99: number; mean: number; max: number };
  /**
   * Answers with the valid key served (2xx) in each whole second of the run, at the fewest: the
   * valid key kept being served while unknown keys and slow clients came in beside it.
   */
  validServedPerSecond: { min: number; seconds: number };
  slowClients: SlowClientsReport;
  /**
   * Resident set size of the server in MiB, when its pid is known: before the load, after a sixth of
   * the run (JIT and caches warmed up), at the end and at its peak; growth is end minus start.
   */
  rssMiB: { start: number; warm: number; end: number; peak: number; growth: number; growthSinceWarm: number } | undefined;
  /**
   * True when the run found nothing wrong: no 5xx, no socket error, no contract violation, the valid key served every
   * second, every slow client cut with a problem, and RSS bounded (`MAX_RSS_GROWTH_SINCE_WARM_MIB`) when it is known.
   */
  ok: boolean;
}

/**
 * RSS may grow this much after warm-up: the caches filling (pages are bounded at 8 MiB, keys and unknown keys at
 * 10,000 entries each) and the heap settling take a few MiB; a leak under a minute of load takes more.
 */
export const MAX_RSS_GROWTH_SINCE_WARM_MIB = 50;

/** One entry of the mix: a request, what the contract says about its answer, and how often it comes. */
interface MixEntry {
  name: string;
  /** operationId whose responses the answer must honour; undefined for requests outside the operations. */
  operationId: string | undefined;
  request: AutocannonRequest;
  /** Sent with the valid key and meant to be served: counted for `validServedPerSecond`. */
  valid?: boolean;
}

/** A well-formed key with a valid checksum that no one was ever given: a fresh one each request, as a key-guessing flood sends. */
function withUnknownKey(request: AutocannonRequest): AutocannonRequest {
  return { ...request, headers: { ...request.headers, Authorization: `Bearer ${generateApiKey().key}` } };
}

/**
 * The mix of requests each connection cycles through: about two thirds valid
 * (all three operations, both orders, real pagination with the cursor of the
 * previous answer) and one third that the contract refuses (malformed, invalid,
 * unauthenticated, oversized, unknown path, wrong method).
 */
function requestMix(token: string, basePath: string): MixEntry[] {
  const auth = { Authorization: `Bearer ${token}` };
  const json = { ...auth, 'Content-Type': 'application/json' };
  const root = basePath || '/';
  const shared = `${basePath}/shared`;
  const post = (path: string, body: string, headers: Record<string, string> = json): AutocannonRequest => ({ method: 'POST', path, headers, body });
  return [
    { name: 'own, defaults', valid: true, operationId: 'listOwnItems', request: post(root, '{}') },
    {
      name: 'own, first page of 5',
      valid: true,
      operationId: 'listOwnItems',
      request: {
        ...post(root, '{"limit":5}'),
        onResponse: (_status, body, context) => {
          try {
            context['cursor'] = (JSON.parse(String(body)) as { nextCursor?: unknown }).nextCursor ?? undefined;
          } catch {
            context['cursor'] = undefined;
          }
        },
      },
    },
    {
      name: 'own, next page',
      valid: true,
      operationId: 'listOwnItems',
      request: {
        ...post(root, '{"limit":5}'),
        setupRequest: (request, context) => ({
          ...request,
          body: JSON.stringify({ limit: 5, ...(typeof context['cursor'] === 'string' && { cursor: context['cursor'] }) }),
        }),
      },
    },
    { name: 'own, newest first', valid: true, operationId: 'listOwnItems', request: post(root, '{"sort":"desc","limit":3}') },
    { name: 'shared, POST', valid: true, operationId: 'listSharedItems', request: post(shared, '{"sort":"asc"}') },
    { name: 'shared, GET', valid: true, operationId: 'listSharedItemsByQuery', request: { method: 'GET', path: `${shared}?limit=2&sort=desc`, headers: auth } },
    { name: 'shared, GET defaults', valid: true, operationId: 'listSharedItemsByQuery', request: { method: 'GET', path: shared, headers: { ...json } } },
    {
      name: 'own, charset',
      valid: true,
      operationId: 'listOwnItems',
      request: post(root, '{"sort":"asc"}', { ...auth, 'Content-Type': 'application/json; charset=utf-8' }),
    },
    { name: 'malformed JSON', operationId: 'listOwnItems', request: post(root, '{"sort":') },
    { name: 'invalid sort', operationId: 'listOwnItems', request: post(root, '{"sort":"sideways","srot":1}') },
    { name: 'wrong media type', operationId: 'listSharedItems', request: post(shared, '{}', { ...auth, 'Content-Type': 'text/plain' }) },
    { name: 'no key', operationId: 'listSharedItemsByQuery', request: { method: 'GET', path: shared, headers: {} } },
    { name: 'bad key', operationId: 'listOwnItems', request: post(root, '{}', { Authorization: 'Bearer tka_notakey', 'Content-Type': 'application/json' }) },
    {
      name: 'unknown key, POST',
      operationId: 'listOwnItems',
      request: { ...post(root, '{}'), setupRequest: (request) => withUnknownKey(request) },
    },
    {
      name: 'unknown key, GET',
      operationId: 'listSharedItemsByQuery',
      request: { method: 'GET', path: shared, headers: auth, setupRequest: (request) => withUnknownKey(request) },
    },
    { name: 'over the size limit', operationId: 'listOwnItems', request: post(root, `{"sort":"${'a'.repeat(9000)}"}`) },
    { name: 'limit out of range', operationId: 'listSharedItemsByQuery', request: { method: 'GET', path: `${shared}?limit=1000`, headers: auth } },
    { name: 'deep nesting', operationId: 'listSharedItems', request: post(shared, `{"sort":${'['.repeat(2000)}${']'.repeat(2000)}}`) },
    { name: 'unknown path', operationId: undefined, request: { method: 'GET', path: `${basePath}/items`, headers: auth } },
    { name: 'wrong method', operationId: undefined, request: { method: 'DELETE', path: shared, headers: auth } },
  ];
}

/**
 * Drives a running server with the request mix for a bounded time and reports
 * what happened. Every answer is also checked against the spec.
 */
export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const url = new URL(options.url);
  const basePath = url.pathname.replace(/\/+$/, '');
  const spec = loadSpec();
  const checker = new ResponseChecker(spec);
  const validateProblem = compileSpecSchema(createSpecAjv(spec), { $ref: '#/components/schemas/Problem' });
  let contractViolations = 0;
  const violationExamples: string[] = [];
  const violation = (text: string) => {
    contractViolations++;
    if (violationExamples.length < 5) violationExamples.push(text);
  };

  /** 2xx answers to the valid key, by whole second since the load started. */
  const validServed: number[] = [];
  let loadStarted = performance.now();
  const mix = requestMix(options.token, basePath).map(({ name, operationId, request, valid }) => ({
    ...request,
    onResponse: (status: number, body: string | Buffer, context: Record<string, unknown>, headers: Record<string, string>) => {
      request.onResponse?.(status, body, context, headers);
      if (valid && status >= 200 && status < 300) {
        const second = Math.floor((performance.now() - loadStarted) / 1000);
        validServed[second] = (validServed[second] ?? 0) + 1;
      }
      const text = String(body);
      if (operationId) {
        for (const problem of checker.check(operationId, { status, headers: new Headers(headers), body: text })) violation(`${name}: ${problem}`);
      } else {
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = undefined;
        }
        if (!validateProblem(parsed)) violation(`${name}: ${status} is not a problem: ${text.slice(0, 200)}`);
      }
    },
  }));

  /** Samples of the server's RSS in KiB. */
  const rss: number[] = [];
  const sampleRss = () => {
    const bytes = options.pid === undefined ? undefined : readRssBytes(options.pid);
    if (bytes !== undefined) rss.push(bytes / 1024);
  };
  sampleRss();
  const socketErrors: Record<string, number> = {};
  let answered = 0;
  const slowClients = startSlowClients({ url: options.url, token: options.token, clients: options.slowClients, isProblem: (body) => validateProblem(body) });
  const started = performance.now();
  loadStarted = started;
  const sampler = setInterval(() => {
    sampleRss();
    options.onProgress?.((performance.now() - started) / 1000, answered);
  }, 1_000);

  const result = await new Promise<AutocannonResult>((resolve, reject) => {
    const instance = autocannon(
      {
        url: url.origin,
        connections: options.connections,
        duration: options.durationSeconds,
        // Stop on time, not on a sample tick far past it.
        sampleInt: 250,
        timeout: 10,
        requests: mix,
      },
      (error, outcome) => (error ? reject(error) : resolve(outcome)),
    );
    instance.on('reqError', (error: NodeJS.ErrnoException) => {
      const code = error.code ?? error.message;
      socketErrors[code] = (socketErrors[code] ?? 0) + 1;
    });
    instance.on('response', () => answered++);
  });
  clearInterval(sampler);
  sampleRss();
  const slow = await slowClients.stop();
  // Whole seconds only: the last, partial one would count fewer answers for no fault of the server's.
  const seconds = Math.max(1, Math.floor(options.durationSeconds));
  const perSecond = Array.from({ length: seconds }, (_, second) => validServed[second] ?? 0);
  const validServedPerSecond = { min: Math.min(...perSecond), seconds };
  // autocannon counts socket errors, but a connection the server closes without answering is silently
  // reopened; such requests show up only as sent and never answered (beyond the one in flight per connection at the end).
  const dropped = Math.max(0, result.requests.sent - result.requests.total - result.errors - options.connections);
  if (dropped > 0) socketErrors['closed without an answer'] = dropped;

  const statuses = Object.fromEntries(Object.entries(result.statusCodeStats).map(([status, { count }]) => [status, Number(count)]));
  const serverErrors = Object.entries(statuses)
    .filter(([status]) => Number(status) >= 500)
    .reduce((sum, [, count]) => sum + count, 0);
  const socketErrorCount = result.errors + dropped;
  const mib = (kib: number) => Math.round((kib / 1024) * 10) / 10;
  const first = rss[0];
  const last = rss.at(-1);
  // One sample before the load, then one a second.
  const warm = rss[Math.min(rss.length - 1, Math.max(1, Math.round(options.durationSeconds / 6)))];
  const rssMiB =
    first !== undefined && last !== undefined && warm !== undefined
      ? { start: mib(first), warm: mib(warm), end: mib(last), peak: mib(Math.max(...rss)), growth: mib(last - first), growthSinceWarm: mib(last - warm) }
      : undefined;
  return {
    url: options.url,
    durationSeconds: options.durationSeconds,
    connections: options.connections,
    requests: result.requests.total,
    requestsPerSecond: Math.round(result.requests.total / options.durationSeconds),
    statuses,
    serverErrors,
    socketErrors,
    socketErrorCount,
    timeouts: result.timeouts,
    contractViolations,
    violationExamples,
    latencyMs: { p50: result.latency.p50, p99: result.latency.p99, mean: Math.round(result.latency.average * 100) / 100, max: result.latency.max },
    validServedPerSecond,
    slowClients: slow,
    rssMiB,
    ok:
      serverErrors === 0 &&
      (rssMiB === undefined || rssMiB.growthSinceWarm <= MAX_RSS_GROWTH_SINCE_WARM_MIB) &&
      socketErrorCount === 0 &&
      contractViolations === 0 &&
      validServedPerSecond.min > 0 &&
      slow.serverErrors === 0 &&
      slow.notProblems === 0,
  };
}

/** The report as a short table for a terminal. */
export function formatReport(report: SoakReport): string {
  const statuses = Object.entries(report.statuses)
    .map(([status, count]) => `${status}: ${count}`)
    .join(', ');
  const socket = Object.entries(report.socketErrors)
    .map(([code, count]) => `${code}: ${count}`)
    .join(', ');
  const slowEndings = Object.entries(report.slowClients.endings)
    .map(([ending, count]) => `${ending}: ${count}`)
    .join(', ');
  const lines = [
    `soak: ${report.url}, ${report.durationSeconds} s, ${report.connections} connections`,
    `  requests        ${report.requests} (${report.requestsPerSecond}/s)`,
    `  by status       ${statuses || 'none'}`,
    `  5xx             ${report.serverErrors}`,
    `  socket errors   ${report.socketErrorCount}${socket ? ` (${socket})` : ''}, of which timeouts ${report.timeouts}`,
    `  contract        ${report.contractViolations} violations${report.violationExamples.map((example) => `\n                  ${example}`).join('')}`,
    `  latency         p50 ${report.latencyMs.p50} ms, p99 ${report.latencyMs.p99} ms, max ${report.latencyMs.max} ms`,
    `  valid key       served every second: at least ${report.validServedPerSecond.min} answers in each of ${report.validServedPerSecond.seconds} s`,
    `  slow clients    ${report.slowClients.clients} clients, ${report.slowClients.connections} connections; ended by ${slowEndings || 'nothing yet'}; 5xx ${report.slowClients.serverErrors}, not a problem ${report.slowClients.notProblems}${report.slowClients.examples.map((example) => `\n                  ${example}`).join('')}`,
    report.rssMiB
      ? `  server RSS      start ${report.rssMiB.start} MiB, warmed up ${report.rssMiB.warm} MiB, end ${report.rssMiB.end} MiB, peak ${report.rssMiB.peak} MiB; growth ${report.rssMiB.growth} MiB (${report.rssMiB.growthSinceWarm} MiB since warm-up)`
      : '  server RSS      unknown (pass --pid to read it)',
    `  result          ${report.ok ? 'ok' : `FAILED: 5xx, socket errors, contract violations, a second without the valid key served, a slow client not cut with a problem, or RSS growing over ${MAX_RSS_GROWTH_SINCE_WARM_MIB} MiB after warm-up`}`,
  ];
  return lines.join('\n');
}
