import { Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { TalliedHistogram } from '../../src/ops/tallied-histogram.js';

const BUCKETS = [0.005, 0.01, 0.1, 1];
// On a bound (counted in it, as Prometheus' `le` says), between bounds, below the first and above the last.
const VALUES: [string, string, number][] = [
  ['main', '200', 0.005],
  ['main', '200', 0.0049],
  ['main', '200', 0.05],
  ['main', '404', 1],
  ['main', '404', 7.5],
  ['account', '200', 0.1],
  ['account', '200', 0],
];

/** The same values in prom-client's own histogram and in the tallied one, each in its own registry. */
async function scrapeBoth() {
  const own = new Registry();
  const tallied = new Registry();
  const reference = new Histogram({ name: 'duration_seconds', help: 'h', labelNames: ['api', 'status'], buckets: BUCKETS, registers: [own] });
  const histogram = new TalliedHistogram({ name: 'duration_seconds', help: 'h', labelNames: ['api', 'status'], buckets: BUCKETS, registers: [tallied] });
  for (const [api, status, value] of VALUES) {
    reference.labels(api, status).observe(value);
    histogram.record([api, status], value);
  }
  return { own, tallied, histogram };
}

describe('the tallied histogram', () => {
  it("writes the same exposition as prom-client's histogram for the same values", async () => {
    const { own, tallied } = await scrapeBoth();
    expect(await tallied.metrics()).toBe(await own.metrics());
    expect(await tallied.metrics()).toContain('duration_seconds_bucket{le="0.005",api="main",status="200"} 2');
  });

  it("gives the registry's JSON the same samples", async () => {
    const { own, tallied } = await scrapeBoth();
    expect(await tallied.getMetricsAsJSON()).toEqual(await own.getMetricsAsJSON());
  });

  it('starts again from nothing when the registry is reset', async () => {
    const { tallied, histogram } = await scrapeBoth();
    tallied.resetMetrics();
    expect(await tallied.metrics()).toBe('# HELP duration_seconds h\n# TYPE duration_seconds histogram\n');
    histogram.record(['main', '200'], 0.2);
    expect(await tallied.metrics()).toContain('duration_seconds_count{api="main",status="200"} 1');
  });

  it('refuses a series with the wrong number of label values', async () => {
    const { histogram } = await scrapeBoth();
    expect(() => histogram.record(['main'], 0.1)).toThrow(/takes 2 label values, got 1/);
  });
});
