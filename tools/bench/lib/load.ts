// One measurement: autocannon against one server for a fixed time, with the server's RSS sampled meanwhile.
import autocannon from 'autocannon';
import { readCpuMs, readRssBytes } from '../../process/resource-usage.js';
import { percentileOfSorted, Samples } from './stats.js';

export interface LoadOptions {
  /** One URL, or several instances of one deployment: the connections are split evenly between them. */
  url: string | string[];
  headers: Record<string, string>;
  body: string;
  connections: number;
  durationSeconds: number;
  /** The server process (or instances) whose RSS is sampled and CPU counted while the load runs. */
  pid?: number | number[];
  /** Processes whose CPU counts as the database's (a PostgreSQL cluster's), read when the run starts and ends. */
  databasePids?: () => number[];
}

export interface LoadResult {
  /** 2xx answers per second of wall time. */
  requestsPerSecond: number;
  /** Latency of the 2xx answers in milliseconds, from every response (autocannon's own histogram keeps whole ms only). */
  p50Ms: number;
  p99Ms: number;
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** Largest RSS seen while loaded, in bytes (of the largest instance). */
  peakRssBytes: number | undefined;
  /** CPU time of the database's processes per answer, in microseconds, when `databasePids` was given. */
  databaseCpuPerRequestUs?: number | undefined;
  /**
   * CPU time the server process used per answer, in microseconds. Unlike req/s it hardly
   * moves when other work on the machine takes turns on the CPU.
   */
  cpuPerRequestUs: number | undefined;
  /**
   * Share of one core the load generator (this process) used. Near 1 it, not the
   * server, set the pace, and req/s says little about the server.
   */
  generatorCpuShare: number;
}

const RSS_SAMPLE_MS = 200;

/** The part of autocannon's result the harness sums over instances. */
interface AutocannonTotals {
  errors: number;
  timeouts: number;
}

/** CPU ms of each process, by pid; a process missing at one end counts from 0 (a new backend) or is dropped. */
function cpuOf(pids: number[]): Map<number, number> {
  const times = new Map<number, number>();
  for (const pid of pids) {
    const cpu = readCpuMs(pid);
    if (cpu !== undefined) times.set(pid, cpu);
  }
  return times;
}

function cpuSpent(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0;
  for (const [pid, cpu] of after) total += cpu - (before.get(pid) ?? 0);
  return total;
}

/** Runs autocannon as a library (one instance per URL, connections split) and keeps its own sub-millisecond latency samples. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const urls = typeof options.url === 'string' ? [options.url] : options.url;
  const pids = options.pid === undefined ? [] : typeof options.pid === 'number' ? [options.pid] : options.pid;
  const latencies = new Samples();
  let non2xx = 0;
  let peakRss: number | undefined;
  const sampleRss = (): void => {
    for (const pid of pids) {
      const rss = readRssBytes(pid);
      if (rss !== undefined && (peakRss === undefined || rss > peakRss)) peakRss = rss;
    }
  };
  const sampler = setInterval(sampleRss, RSS_SAMPLE_MS);
  const cpuBefore = cpuOf(pids);
  const databaseBefore = options.databasePids ? cpuOf(options.databasePids()) : undefined;
  const started = performance.now();
  const generatorBefore = process.cpuUsage();
  const share = (index: number) => Math.floor(options.connections / urls.length) + (index < options.connections % urls.length ? 1 : 0);
  let results: AutocannonTotals[];
  try {
    results = await Promise.all(
      urls.map(
        (url, index) =>
          new Promise<AutocannonTotals>((resolve, reject) => {
            const instance = autocannon(
              {
                url,
                method: 'POST',
                headers: options.headers,
                body: options.body,
                connections: Math.max(1, share(index)),
                pipelining: 1,
                duration: options.durationSeconds,
                // autocannon stops only on a sample tick; tick often enough for short runs.
                sampleInt: Math.min(1000, Math.max(50, Math.floor((options.durationSeconds * 1000) / 4))),
              },
              (error, result) => (error ? reject(error) : resolve(result)),
            );
            instance.on('response', (_client, statusCode, _bytes, responseTimeMs) => {
              if (statusCode >= 200 && statusCode < 300) latencies.push(responseTimeMs);
              else non2xx++;
            });
          }),
      ),
    );
  } finally {
    clearInterval(sampler);
  }
  const elapsedSeconds = (performance.now() - started) / 1000;
  const generator = process.cpuUsage(generatorBefore);
  sampleRss();
  const cpuAfter = cpuOf(pids);
  const answered = latencies.length + non2xx;
  const sorted = latencies.sorted();
  const perAnswer = (ms: number) => (answered > 0 ? (ms * 1000) / answered : undefined);
  return {
    requestsPerSecond: latencies.length / elapsedSeconds,
    p50Ms: percentileOfSorted(sorted, 50),
    p99Ms: percentileOfSorted(sorted, 99),
    ok: latencies.length,
    non2xx,
    errors: results.reduce((sum, result) => sum + result.errors, 0),
    timeouts: results.reduce((sum, result) => sum + result.timeouts, 0),
    peakRssBytes: peakRss,
    generatorCpuShare: (generator.user + generator.system) / 1e6 / elapsedSeconds,
    cpuPerRequestUs: pids.length > 0 && cpuAfter.size === pids.length ? perAnswer(cpuSpent(cpuBefore, cpuAfter)) : undefined,
    ...(databaseBefore && options.databasePids && { databaseCpuPerRequestUs: perAnswer(cpuSpent(databaseBefore, cpuOf(options.databasePids()))) }),
  };
}
