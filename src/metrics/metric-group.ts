// MetricGroupImpl: a named scope (job, operator subtask, user sub-group) that creates and registers metrics.
import type { Counter, Gauge, Histogram, Meter, MetricGroup } from '../core/metric-group.ts';
import { SimpleCounter } from './counter.ts';
import type { Metric } from './metric.ts';

/** The level a group belongs to: the job as a whole, or one subtask of an operator. */
export type MetricScope = 'job' | 'operator';

/** Where a group's metrics go: the registry, or nowhere when metrics are off. */
export interface MetricSink {
  register(group: MetricGroupImpl, name: string, metric: Metric): void;
}

/** The implementation of {@link MetricGroup} the registry hands out. */
export class MetricGroupImpl implements MetricGroup {
  /** User sub-group names below the scope (they become part of a Prometheus metric name). */
  readonly userPath: readonly string[];

  constructor(
    private readonly sink: MetricSink,
    readonly scope: MetricScope,
    private readonly variables: Readonly<Record<string, string>>,
    private readonly components: readonly string[],
    userPath: readonly string[] = [],
    readonly parent: MetricGroupImpl | undefined = undefined,
  ) {
    this.userPath = userPath;
  }

  counter<C extends Counter>(name: string, counter?: C): C {
    return this.add(name, counter ?? (new SimpleCounter() as Counter as C));
  }

  gauge<T, G extends Gauge<T>>(name: string, gauge: G): G {
    return this.add(name, gauge);
  }

  histogram<H extends Histogram>(name: string, histogram: H): H {
    return this.add(name, histogram);
  }

  meter<M extends Meter>(name: string, meter: M): M {
    return this.add(name, meter);
  }

  addGroup(name: string, value?: string): MetricGroup {
    checkName(name);
    const variables = value === undefined ? this.variables : { ...this.variables, [name]: value };
    const added = value === undefined ? [name] : [name, value];
    return new MetricGroupImpl(
      this.sink,
      this.scope,
      variables,
      [...this.components, ...added],
      [...this.userPath, name],
      this,
    );
  }

  getAllVariables(): Readonly<Record<string, string>> {
    return this.variables;
  }

  getScopeComponents(): readonly string[] {
    return this.components;
  }

  getMetricIdentifier(name: string): string {
    return [...this.components, name].join('.');
  }

  /** Whether `this` is `group` or lies below it. */
  isWithin(group: MetricGroupImpl): boolean {
    for (let g: MetricGroupImpl | undefined = this; g !== undefined; g = g.parent)
      if (g === group) return true;
    return false;
  }

  private add<M extends Metric>(name: string, metric: M): M {
    checkName(name);
    this.sink.register(this, name, metric);
    return metric;
  }
}

/** Metric and group names become Prometheus names and URL segments: letters, digits, `_`, `-`, `.` only. */
function checkName(name: string): void {
  if (!/^[A-Za-z_][A-Za-z0-9_.-]*$/.test(name)) {
    throw new TypeError(
      `Invalid metric or group name '${name}': use letters, digits, '_', '-' and '.', starting with a letter or '_'`,
    );
  }
}

/** The sink of groups whose job runs with metrics off: metrics work as objects but are reported nowhere. */
export const DISCARDING_METRIC_SINK: MetricSink = { register() {} };
