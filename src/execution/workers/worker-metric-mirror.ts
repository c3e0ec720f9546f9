// WorkerMetricMirror: the metrics of subtasks on worker threads, as gauges in the main thread's registry.
import type { StreamGraph } from '../../graph/stream-graph.ts';
import type { MetricGroupImpl } from '../../metrics/metric-group.ts';
import type { MetricRegistry } from '../../metrics/metric-registry.ts';
import { operatorScope } from '../../runtime/subtask.ts';
import { SortedStatistics } from '../../metrics/histogram.ts';
import type { MetricKind } from '../../metrics/metric.ts';
import type { MetricPlace, SubtaskFigures } from '../../runtime/subtask-figures.ts';

/** One worker subtask's mirrored metrics: its group and the last place the worker sent of each, by place. */
interface MirroredSubtask {
  readonly group: MetricGroupImpl;
  readonly places: Map<string, MetricPlace>;
}

/**
 * Reporters (Prometheus, OpenTelemetry) are attached to the main thread's registry, and a worker's metrics live in
 * that worker's registry. Each time a worker's figures arrive, this registers in the main registry, under the
 * same scope (job, operator, subtask and user groups), a metric of the same kind for each one not seen before,
 * reading what the worker last sent: reporters then see every subtask of the job, one tick behind at most, and
 * report it as they would on the worker's thread (a counter as a counter, a meter's rate and count, a histogram's
 * quantiles over the values its window held).
 */
export class WorkerMetricMirror {
  private readonly subtasks = new Map<string, MirroredSubtask>();

  constructor(
    private readonly scope: { readonly registry: MetricRegistry; readonly jobGroup: MetricGroupImpl },
    private readonly graph: StreamGraph,
  ) {}

  /** Takes the figures a worker sent for subtask `figures.index` of the operator `uid`. */
  update(uid: string, figures: SubtaskFigures): void {
    const places = figures.places;
    if (places === undefined) return;
    const id = `${uid}\u0000${figures.index}`;
    let mirrored = this.subtasks.get(id);
    if (mirrored === undefined) {
      const node = this.graph.nodes.find((n) => n.uid === uid);
      if (node === undefined) return;
      mirrored = { group: operatorScope(this.scope, node, figures.index), places: new Map() };
      this.subtasks.set(id, mirrored);
    }
    const latest = mirrored.places;
    for (const place of places) {
      const key = JSON.stringify([place.groups, place.name]);
      const known = latest.has(key);
      latest.set(key, place);
      if (known) continue;
      let group = mirrored.group;
      for (const [name, value] of place.groups) group = group.addGroup(name!, value) as MetricGroupImpl;
      register(group, place.name, place.kind, () => latest.get(key)!);
    }
  }

  /** Removes every mirrored metric from the registry (the attempt ended). */
  release(): void {
    for (const { group } of this.subtasks.values()) this.scope.registry.unregister(group);
    this.subtasks.clear();
  }
}

/** Registers in `group` a metric of `kind` named `name` that reads the place `read` returns (the latest sent). */
function register(group: MetricGroupImpl, name: string, kind: MetricKind, read: () => MetricPlace): void {
  // Updating a mirror does nothing: the metric is the worker's, and only its worker changes it.
  const ignore = (): void => {};
  switch (kind) {
    case 'counter':
      group.counter(name, { inc: ignore, dec: ignore, getCount: () => read().value });
      return;
    case 'meter':
      group.meter(name, {
        markEvent: ignore,
        getRate: () => read().value,
        getCount: () => read().count ?? 0,
      });
      return;
    case 'histogram':
      group.histogram(name, {
        update: ignore,
        getCount: () => read().value,
        getStatistics: () => new SortedStatistics([...(read().values ?? [])]),
      });
      return;
    case 'gauge':
      group.gauge(name, { getValue: () => read().value });
      return;
  }
}
