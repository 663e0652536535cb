import { Histogram } from 'prom-client';

/** What a histogram's `get()` gives prom-client's registry. */
type Samples<T extends string> = Awaited<ReturnType<Histogram<T>['get']>>;
type Sample<T extends string> = Samples<T>['values'][number];

/** One series: its label values in the order of `labelNames`, and its counts per bucket (not cumulative; the last is +Inf). */
interface Series {
  readonly labels: Record<string, string>;
  readonly counts: Float64Array;
  sum: number;
  count: number;
}

/**
 * A prom-client histogram for the request path: `record()` adds a value to its series' bucket with no
 * allocation (a series is found through one map per label, so no key is built; values are counted in a
 * typed array), and the cumulative buckets, sum and count are worked out only when scraped. prom-client's
 * own `observe()` validates and hashes the labels, and makes a closure, on every call, which measured as the
 * whole of the metrics' cost per request (ADR 0026). Registered and scraped like any prom-client metric; its
 * exposition is the same as a `Histogram`'s.
 *
 * `observe()`, `labels()`, `startTimer()` and `zero()` of the base class are not used: values come in
 * through `record()` only.
 */
export class TalliedHistogram<T extends string> extends Histogram<T> {
  readonly #name: string;
  readonly #help: string;
  readonly #bounds: readonly number[];
  readonly #labelNames: readonly T[];
  // Plain (not #) fields: prom-client's constructor calls `reset()` before a subclass's private fields exist.
  /** Label values, one map level per label name, down to the series. */
  private root = new Map<string, unknown>();
  private series: Series[] = [];

  constructor(configuration: {
    name: string;
    help: string;
    labelNames: readonly T[];
    buckets: readonly number[];
    registers: NonNullable<ConstructorParameters<typeof Histogram<T>>[0]['registers']>;
  }) {
    super({ ...configuration, labelNames: [...configuration.labelNames], buckets: [...configuration.buckets] });
    this.#name = configuration.name;
    this.#help = configuration.help;
    this.#bounds = [...configuration.buckets].sort((a, b) => a - b);
    this.#labelNames = configuration.labelNames;
  }

  /** Adds one value to the series of these label values (in the order of `labelNames`). */
  record(labelValues: readonly string[], value: number): void {
    if (labelValues.length !== this.#labelNames.length)
      throw new TypeError(`${this.#name} takes ${this.#labelNames.length} label values, got ${labelValues.length}`);
    const series = this.#find(labelValues);
    const bounds = this.#bounds;
    let bucket = 0;
    while (bucket < bounds.length && value > (bounds[bucket] as number)) bucket++;
    (series.counts[bucket] as number)++;
    series.sum += value;
    series.count++;
  }

  #find(labelValues: readonly string[]): Series {
    let level = this.root;
    const last = labelValues.length - 1;
    for (let index = 0; index < last; index++) {
      const value = labelValues[index] as string;
      let next = level.get(value) as Map<string, unknown> | undefined;
      if (next === undefined) {
        next = new Map();
        level.set(value, next);
      }
      level = next;
    }
    const leaf = labelValues[last] as string;
    let series = level.get(leaf) as Series | undefined;
    if (series === undefined) {
      const labels: Record<string, string> = {};
      this.#labelNames.forEach((name, index) => {
        labels[name] = labelValues[index] as string;
      });
      series = { labels, counts: new Float64Array(this.#bounds.length + 1), sum: 0, count: 0 };
      level.set(leaf, series);
      this.series.push(series);
    }
    return series;
  }

  override reset(): void {
    this.root = new Map();
    this.series = [];
  }

  /** The samples in the shape prom-client's registry writes: `le` as the sample's label, the series' labels shared. */
  async getForPromString(): Promise<Samples<T>> {
    const name = this.#name;
    const values: (Sample<T> & { sharedLabels: Record<string, string>; exemplar?: null })[] = [];
    for (const series of this.series) {
      let cumulative = 0;
      this.#bounds.forEach((bound, index) => {
        cumulative += series.counts[index] as number;
        values.push({ labels: { le: bound } as never, sharedLabels: series.labels, value: cumulative, metricName: `${name}_bucket`, exemplar: null });
      });
      values.push({ labels: { le: '+Inf' } as never, sharedLabels: series.labels, value: series.count, metricName: `${name}_bucket`, exemplar: null });
      values.push({ labels: {}, sharedLabels: series.labels, value: series.sum, metricName: `${name}_sum` });
      values.push({ labels: {}, sharedLabels: series.labels, value: series.count, metricName: `${name}_count` });
    }
    // As prom-client's own histogram answers. Its declared type differs from what it makes (a numeric `MetricType`
    // enum that is not exported at run time, and `collect`, which no answer carries), hence the cast.
    const samples = { name, help: this.#help, type: 'histogram', aggregator: 'sum', values };
    return samples as unknown as Samples<T>;
  }

  /** The same samples with every label on the sample, as `registry.getMetricsAsJSON()` gives them. */
  override async get(): Promise<Samples<T>> {
    const data = await this.getForPromString();
    const values = data.values.map((value) => {
      const { sharedLabels, labels, ...rest } = value as typeof value & { sharedLabels: Record<string, string> };
      return { ...rest, labels: { ...labels, ...sharedLabels } };
    });
    return { ...data, values };
  }
}
