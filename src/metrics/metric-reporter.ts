// MetricReporter: the plug-in interface through which metrics leave the job (Flink's MetricReporter).
import type { Metric } from './metric.ts';
import type { MetricGroup } from '../core/metric-group.ts';

/**
 * Receives every metric as it is registered and removed (subtasks register theirs when a job attempt starts and
 * remove them when it ends). A reporter that pushes implements `report`, which the registry calls on every tick
 * (Flink's Scheduled reporters); a reporter that is scraped (Prometheus) reads the metrics it was given instead.
 *
 * @example
 * const logging: MetricReporter = {
 *   metrics: new Map<string, Metric>(),
 *   notifyOfAddedMetric(metric, name, group) { this.metrics.set(group.getMetricIdentifier(name), metric); },
 *   notifyOfRemovedMetric(_m, name, group) { this.metrics.delete(group.getMetricIdentifier(name)); },
 *   report() { for (const [id, m] of this.metrics) console.log(id, metricValue(m)); },
 * };
 */
export interface MetricReporter {
  notifyOfAddedMetric(metric: Metric, name: string, group: MetricGroup): void;
  notifyOfRemovedMetric(metric: Metric, name: string, group: MetricGroup): void;
  /** Called on every registry tick, after views (rates, busy time) were updated. */
  report?(): void;
}
