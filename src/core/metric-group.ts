// Metric contracts: the MetricGroup user functions get and the four kinds of metric it creates (Flink's metrics core).

/**
 * Flink's Counter. The runtime's own counts are plain number fields on the record path, read through counters
 * when reported, so counting a record costs one increment and no call.
 *
 * @example
 * const parsed = ctx.getMetricGroup().counter('parsed');
 * parsed.inc();
 */
export interface Counter {
  inc(n?: number): void;
  dec(n?: number): void;
  getCount(): number;
}

/**
 * A metric whose value is computed when read. Reading happens on the sampler or a reporter, never on the record
 * path, so a gauge may do a little work (sum over subtasks, read a clock).
 *
 * @example
 * ctx.getMetricGroup().gauge('queueLength', { getValue: () => this.queue.length });
 */
export interface Gauge<T = number> {
  getValue(): T;
}

/** What a histogram reports: Flink's HistogramStatistics. */
export interface HistogramStatistics {
  getQuantile(quantile: number): number;
  getValues(): number[];
  size(): number;
  getMean(): number;
  getStdDev(): number;
  getMax(): number;
  getMin(): number;
}

/**
 * Flink's Histogram.
 *
 * @example
 * const latency = ctx.getMetricGroup().histogram('latencyMs', new DescriptiveStatisticsHistogram(500));
 * latency.update(Date.now() - event.createdAt);
 */
export interface Histogram {
  update(value: number): void;
  getCount(): number;
  getStatistics(): HistogramStatistics;
}

/**
 * Flink's Meter: a count of events and its rate per second.
 *
 * @example
 * const requests = ctx.getMetricGroup().meter('requests', new MeterView(10));
 * requests.markEvent();
 */
export interface Meter {
  markEvent(n?: number): void;
  getRate(): number;
  getCount(): number;
}

/**
 * Flink's MetricGroup: where user functions get metrics (`ctx.getMetricGroup()`) and the runtime registers its
 * own. Every group carries variables (Flink's `<job_name>`, `<operator_name>`, `<subtask_index>`, …, here
 * without brackets), which reporters turn into labels.
 *
 * @example
 * open(ctx) {
 *   this.invalid = ctx.getMetricGroup().addGroup('parser').counter('invalidLines');
 *   ctx.getMetricGroup().gauge('bufferSize', { getValue: () => this.buffer.length });
 * }
 */
export interface MetricGroup {
  counter(name: string): Counter;
  counter<C extends Counter>(name: string, counter: C): C;
  gauge<T, G extends Gauge<T>>(name: string, gauge: G): G;
  histogram<H extends Histogram>(name: string, histogram: H): H;
  meter<M extends Meter>(name: string, meter: M): M;
  /** A sub-group named `name`; with a value, a key-value group that also adds the variable `name` = `value`. */
  addGroup(name: string, value?: string): MetricGroup;
  getAllVariables(): Readonly<Record<string, string>>;
  /** The group's path, e.g. `['orders', 'window', '0', 'parser']`. */
  getScopeComponents(): readonly string[];
  /** The metric's dotted identifier, e.g. `orders.window.0.parser.invalidLines`. */
  getMetricIdentifier(name: string): string;
}
