// MetricRegistry: holds a job's metrics, ticks the sampler that updates rates, and feeds reporters.
import type { Metric } from './metric.ts';
import { metricKind, type MetricKind } from './metric.ts';
import { MetricGroupImpl, type MetricScope, type MetricSink } from './metric-group.ts';
import type { MetricReporter } from './metric-reporter.ts';
import type { View } from './meter.ts';

/** One registered metric with its group. */
export interface RegisteredMetric {
  readonly name: string;
  readonly metric: Metric;
  readonly kind: MetricKind;
  readonly group: MetricGroupImpl;
}

/** Options of a {@link MetricRegistry}. */
export interface MetricRegistryOptions {
  /** Reporters that receive every metric (default none; the REST API reads the registry directly). */
  readonly reporters?: readonly MetricReporter[];
  /** How often rates and busy time are sampled and scheduled reporters report, in ms (default 1000). */
  readonly intervalMs?: number;
}

/**
 * The metrics of one job. Nothing here runs per record: the runtime registers gauges and counters over its plain
 * fields, and a timer (`intervalMs`, unref'd so it never keeps the process alive) updates views — per-second
 * rates, busy/idle time — then lets scheduled reporters report. Registering a duplicate name in one group
 * replaces nothing: the first wins and the second is ignored, as Flink warns and ignores.
 */
export class MetricRegistry implements MetricSink {
  readonly intervalMs: number;
  private readonly metrics: RegisteredMetric[] = [];
  private readonly views = new Set<View>();
  private readonly reporters: MetricReporter[];
  private timer: NodeJS.Timeout | undefined = undefined;

  constructor(options: MetricRegistryOptions = {}) {
    this.intervalMs = options.intervalMs ?? 1000;
    if (!(this.intervalMs > 0))
      throw new RangeError(`The metrics interval must be positive, got ${this.intervalMs}`);
    this.reporters = [...(options.reporters ?? [])];
  }

  /** The root group of a scope with its variables and dotted path. */
  createGroup(
    scope: MetricScope,
    variables: Record<string, string>,
    components: readonly string[],
  ): MetricGroupImpl {
    return new MetricGroupImpl(this, scope, variables, components);
  }

  register(group: MetricGroupImpl, name: string, metric: Metric): void {
    const kind = metricKind(metric);
    if (this.metrics.some((m) => m.group === group && m.name === name)) return;
    this.metrics.push({ name, metric, kind, group });
    if (isView(metric)) this.views.add(metric);
    for (const reporter of this.reporters) reporter.notifyOfAddedMetric(metric, name, group);
  }

  /** Removes every metric of `group` and of the groups below it (a job attempt ended). */
  unregister(group: MetricGroupImpl): void {
    for (let i = this.metrics.length - 1; i >= 0; i--) {
      const m = this.metrics[i]!;
      if (!m.group.isWithin(group)) continue;
      this.metrics.splice(i, 1);
      if (isView(m.metric)) this.views.delete(m.metric);
      for (const reporter of this.reporters) reporter.notifyOfRemovedMetric(m.metric, m.name, m.group);
    }
  }

  /** Every registered metric, in registration order. */
  all(): readonly RegisteredMetric[] {
    return this.metrics;
  }

  /** Adds something updated on every tick besides metrics (the runtime's busy-time sampler). */
  addView(view: View): void {
    this.views.add(view);
  }

  removeView(view: View): void {
    this.views.delete(view);
  }

  /** Starts the periodic tick. */
  start(): void {
    if (this.timer !== undefined) return;
    this.tick(Date.now());
    this.timer = setInterval(() => this.tick(Date.now()), this.intervalMs);
    this.timer.unref();
  }

  /** Updates every view, then lets reporters report. Called by the timer; tests call it with a manual time. */
  tick(nowMs: number): void {
    for (const view of this.views) view.sample(nowMs);
    for (const reporter of this.reporters) reporter.report?.();
  }

  /**
   * Stops the tick after a last one (so reporters see the final counts). Reporters stay open: whoever created
   * them closes them (one reporter may serve several jobs).
   */
  close(): void {
    if (this.timer === undefined) return;
    clearInterval(this.timer);
    this.timer = undefined;
    this.tick(Date.now());
  }
}

function isView(metric: unknown): metric is View {
  return typeof (metric as Partial<View>).sample === 'function';
}
