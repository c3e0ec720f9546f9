// WorkerMetricMirror: the metrics of subtasks on worker threads, as gauges in the main thread's registry.
import type { StreamGraph } from '../../graph/stream-graph.ts';
import type { MetricGroupImpl } from '../../metrics/metric-group.ts';
import type { MetricRegistry } from '../../metrics/metric-registry.ts';
import { operatorScope } from '../../runtime/subtask.ts';
import type { SubtaskFigures } from '../../runtime/subtask-figures.ts';

/** One worker subtask's mirrored metrics: its group and the last value of each, by place. */
interface MirroredSubtask {
  readonly group: MetricGroupImpl;
  readonly values: Map<string, number>;
}

/**
 * Reporters (Prometheus, OpenTelemetry) are attached to the main thread's registry, and a worker's metrics live in
 * that worker's registry. Each time a worker's figures arrive, this registers in the main registry, under the
 * same scope (job, operator, subtask and user groups), a gauge per metric not seen before, reading the last value
 * the worker sent: reporters then see every subtask of the job, one tick behind at most. A counter or a meter is
 * mirrored as the number the worker read (a count, a rate), a histogram as its count.
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
      mirrored = { group: operatorScope(this.scope, node, figures.index), values: new Map() };
      this.subtasks.set(id, mirrored);
    }
    const values = mirrored.values;
    for (const place of places) {
      const key = JSON.stringify([place.groups, place.name]);
      const known = values.has(key);
      values.set(key, place.value);
      if (known) continue;
      let group = mirrored.group;
      for (const [name, value] of place.groups) group = group.addGroup(name!, value) as MetricGroupImpl;
      group.gauge(place.name, { getValue: () => values.get(key) });
    }
  }

  /** Removes every mirrored metric from the registry (the attempt ended). */
  release(): void {
    for (const { group } of this.subtasks.values()) this.scope.registry.unregister(group);
    this.subtasks.clear();
  }
}
