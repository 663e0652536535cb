// One measurement: autocannon against one server for a fixed time, with the server's RSS sampled meanwhile.
import autocannon from 'autocannon';
import { readCpuMs, readRssBytes } from '../../src/process/resource-usage.js';
import { percentileOfSorted, Samples } from './stats.js';

export interface LoadOptions {
  url: string;
  headers: Record<string, string>;
  body: string;
  connections: number;
  durationSeconds: number;
  /** The server process whose RSS is sampled while the load runs. */
  pid?: number;
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
  /** Largest RSS seen while loaded, in bytes. */
  peakRssBytes: number | undefined;
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

/** Runs autocannon as a library and keeps its own sub-millisecond latency samples. */
export function runLoad(options: LoadOptions): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const latencies = new Samples();
    let non2xx = 0;
    let peakRss: number | undefined;
    const sampleRss = (): void => {
      if (options.pid === undefined) return;
      const rss = readRssBytes(options.pid);
      if (rss !== undefined && (peakRss === undefined || rss > peakRss)) peakRss = rss;
    };
    const sampler = setInterval(sampleRss, RSS_SAMPLE_MS);
    const cpuBefore = options.pid === undefined ? undefined : readCpuMs(options.pid);
    const started = performance.now();
    const generatorBefore = process.cpuUsage();
    const instance = autocannon(
      {
        url: options.url,
        method: 'POST',
        headers: options.headers,
        body: options.body,
        connections: options.connections,
        pipelining: 1,
        duration: options.durationSeconds,
        // autocannon stops only on a sample tick; tick often enough for short runs.
        sampleInt: Math.min(1000, Math.max(50, Math.floor((options.durationSeconds * 1000) / 4))),
      },
      (error, result) => {
        const elapsedSeconds = (performance.now() - started) / 1000;
        const generator = process.cpuUsage(generatorBefore);
        clearInterval(sampler);
        sampleRss();
        const cpuAfter = options.pid === undefined ? undefined : readCpuMs(options.pid);
        const answered = latencies.length + non2xx;
        if (error) {
          reject(error);
          return;
        }
        const sorted = latencies.sorted();
        resolve({
          requestsPerSecond: latencies.length / elapsedSeconds,
          p50Ms: percentileOfSorted(sorted, 50),
          p99Ms: percentileOfSorted(sorted, 99),
          ok: latencies.length,
          non2xx,
          errors: result.errors,
          timeouts: result.timeouts,
          peakRssBytes: peakRss,
          generatorCpuShare: (generator.user + generator.system) / 1e6 / elapsedSeconds,
          cpuPerRequestUs: cpuBefore !== undefined && cpuAfter !== undefined && answered > 0 ? ((cpuAfter - cpuBefore) * 1000) / answered : undefined,
        });
      },
    );
    instance.on('response', (_client, statusCode, _bytes, responseTimeMs) => {
      if (statusCode >= 200 && statusCode < 300) latencies.push(responseTimeMs);
      else non2xx++;
    });
  });
}
