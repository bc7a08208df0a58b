/**
 * Counters and histograms for hot paths, whose series are bound once to their label values.
 * prom-client's own `labels()` child validates and hashes its labels again on every call (about a
 * microsecond, on an answer from memory that takes some twenty: `npm run bench`'s local-evaluation
 * 304 lost a sixth of its rate to it); a bound series here counts in place, and the registry reads
 * the totals when scraped. They register on a prom-client registry and are exposed as its Counter
 * and Histogram are (the same `# TYPE`, sample names, labels and bucket lines), so `/metrics` and
 * its readers cannot tell them apart.
 */
import type { Aggregator, Metric, Registry } from "prom-client";

/** A metric's name, help text, label names and the registries it is served from. */
export interface BoundMetricConfiguration<L extends string> {
  /** Prometheus's name, `_total` included for a counter. */
  name: string;
  help: string;
  labelNames: readonly L[];
  registers: Registry[];
}

/** One sample as prom-client's registry formats it (`metricName` defaults to the metric's name). */
interface Sample {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
}

/** What the registry reads from a metric: prom-client's `MetricObjectWithValues`. */
interface Exposition {
  name: string;
  help: string;
  type: "counter" | "histogram";
  values: Sample[];
  aggregator: Aggregator;
}

/** The series of one metric by label values, and what the registry asks of a metric. */
abstract class BoundMetric<L extends string, S extends { labels: Record<L, string> }> {
  readonly name: string;
  readonly help: string;
  /** How prom-client's cluster registry merges the metric across workers. */
  readonly aggregator: Aggregator = "sum";
  abstract readonly type: Exposition["type"];
  protected readonly bound = new Map<string, S>();
  private readonly labelNames: readonly L[];

  constructor(config: BoundMetricConfiguration<L>) {
    this.name = config.name;
    this.help = config.help;
    this.labelNames = config.labelNames;
    // prom-client's registry takes its own metric classes; it reads `name`, `type`, `aggregator`,
    // `get()` and `reset()`, which this class has.
    for (const registry of config.registers) registry.registerMetric(this as unknown as Metric);
  }

  /**
   * The series of `labels` (the same object for the same values, made on first use). Bind once,
   * outside the hot path, or keep the series by a key of your own.
   * @throws Error when `labels` lacks one of the metric's label names.
   */
  series(labels: Record<L, string>): S {
    const values = this.labelNames.map((name) => {
      const value = labels[name];
      if (typeof value !== "string") throw new Error(`${this.name}: label "${name}" has no value`);
      return value;
    });
    const key = JSON.stringify(values);
    let series = this.bound.get(key);
    if (!series) {
      series = this.create({ ...labels });
      this.bound.set(key, series);
    }
    return series;
  }

  /** The samples, as prom-client's registry reads them (`GET /metrics`). */
  get(): Promise<Exposition> {
    const values: Sample[] = [];
    for (const series of this.bound.values()) this.samples(series, values);
    return Promise.resolve({
      name: this.name,
      help: this.help,
      type: this.type,
      values,
      aggregator: this.aggregator,
    });
  }

  /** Sets every series back to zero (prom-client's `registry.resetMetrics()`). */
  reset(): void {
    for (const series of this.bound.values()) this.clear(series);
  }

  protected abstract create(labels: Record<L, string>): S;
  /** Appends `series`'s samples to `out`, none while it has counted nothing. */
  protected abstract samples(series: S, out: Sample[]): void;
  protected abstract clear(series: S): void;
}

/** A counter's series: a running total. */
export class CounterSeries<L extends string = string> {
  /** @internal The total counted (read by the metric when scraped). */
  value = 0;
  /** @internal Whether it was counted at all, if by zero (prom-client shows such a series). */
  touched = false;

  constructor(readonly labels: Record<L, string>) {}

  /**
   * Adds `amount` (default 1).
   * @throws TypeError for a negative or non-finite amount: a counter only grows.
   */
  inc(amount = 1): void {
    if (!(amount >= 0) || amount === Number.POSITIVE_INFINITY) {
      throw new TypeError(`a counter grows by a finite amount ≥ 0, not ${amount}`);
    }
    this.value += amount;
    this.touched = true;
  }
}

/** A Prometheus counter whose series are bound once (`series(labels).inc()`). */
export class BoundCounter<L extends string> extends BoundMetric<L, CounterSeries<L>> {
  readonly type = "counter";

  protected create(labels: Record<L, string>): CounterSeries<L> {
    return new CounterSeries(labels);
  }

  protected samples(series: CounterSeries<L>, out: Sample[]): void {
    if (series.touched) out.push({ labels: series.labels, value: series.value });
  }

  protected clear(series: CounterSeries<L>): void {
    series.value = 0;
    series.touched = false;
  }
}

/** A histogram's series: a count per bucket, the sum and the count of what it observed. */
export class HistogramSeries<L extends string = string> {
  /** @internal Observations per bucket, not cumulative: `buckets[i]` ≤ `upperBounds[i]`, the last one above all. */
  readonly buckets: Float64Array;
  /** @internal */
  sum = 0;
  /** @internal */
  count = 0;

  constructor(
    readonly labels: Record<L, string>,
    private readonly upperBounds: readonly number[],
  ) {
    this.buckets = new Float64Array(upperBounds.length + 1);
  }

  /**
   * Observes `value` (in the metric's unit: seconds for a duration).
   * @throws TypeError for a value that is not finite.
   */
  observe(value: number): void {
    if (!Number.isFinite(value)) throw new TypeError(`an observation is a finite number, not ${value}`);
    const bounds = this.upperBounds;
    let bucket = 0;
    while (bucket < bounds.length && value > bounds[bucket]!) bucket++;
    this.buckets[bucket]!++;
    this.sum += value;
    this.count++;
  }
}

/** A Prometheus histogram whose series are bound once (`series(labels).observe(seconds)`). */
export class BoundHistogram<L extends string> extends BoundMetric<L, HistogramSeries<L>> {
  readonly type = "histogram";
  private readonly upperBounds: readonly number[];

  /** `buckets`: the upper bounds (`le`), in the metric's unit; `+Inf` is added. */
  constructor(config: BoundMetricConfiguration<L> & { buckets: readonly number[] }) {
    super(config);
    this.upperBounds = [...config.buckets].sort((a, b) => a - b);
  }

  protected create(labels: Record<L, string>): HistogramSeries<L> {
    return new HistogramSeries(labels, this.upperBounds);
  }

  /** prom-client's histogram samples: cumulative `_bucket` lines (`le` first), `+Inf`, `_sum`, `_count`. */
  protected samples(series: HistogramSeries<L>, out: Sample[]): void {
    if (series.count === 0) return;
    const bucketName = `${this.name}_bucket`;
    let cumulative = 0;
    for (const [index, le] of this.upperBounds.entries()) {
      cumulative += series.buckets[index]!;
      out.push({ labels: { le, ...series.labels }, value: cumulative, metricName: bucketName });
    }
    out.push(
      { labels: { le: "+Inf", ...series.labels }, value: series.count, metricName: bucketName },
      { labels: series.labels, value: series.sum, metricName: `${this.name}_sum` },
      { labels: series.labels, value: series.count, metricName: `${this.name}_count` },
    );
  }

  protected clear(series: HistogramSeries<L>): void {
    series.buckets.fill(0);
    series.sum = 0;
    series.count = 0;
  }
}
