// SubtaskFigures: a subtask's live figures as plain data, read on its own thread and sent across threads.
import type { MetricRegistry } from '../metrics/metric-registry.ts';
import type { Histogram, Meter } from '../core/metric-group.ts';
import type { GaugeReadBudget } from '../metrics/gauge-read-budget.ts';
import { metricKind, metricValue, type Metric, type MetricKind } from '../metrics/metric.ts';
import type { MetricGroupImpl } from '../metrics/metric-group.ts';
import type { Subtask } from './subtask.ts';

/**
 * What the REST API and the dashboard show of one subtask. In worker mode a subtask's objects live on its worker
 * thread, so each worker sends these figures to the main thread after every metrics tick (structured-clonable:
 * numbers, booleans and a plain record); on the main thread they are read from the subtask itself.
 */
export interface SubtaskFigures {
  readonly index: number;
  /** Its input ended (a finished source or an operator past end of input). */
  readonly finished: boolean;
  readonly recordsIn: number;
  readonly recordsOut: number;
  readonly currentInputWatermark: number;
  readonly currentOutputWatermark: number;
  readonly busyTimeMsPerSecond: number;
  readonly backPressuredTimeMsPerSecond: number;
  readonly idleTimeMsPerSecond: number;
  /**
   * Every metric of the subtask's group and the groups below it (user metrics), by its path below the subtask
   * (`numRecordsInPerSecond`, `myGroup.myCounter`), as numbers; empty when metrics are off.
   */
  readonly metrics: Readonly<Record<string, number>>;
  /**
   * The same metrics with their place below the subtask's group, when asked for: a worker sends them so the main
   * thread can mirror them into its registry, where its reporters see them.
   */
  readonly places?: readonly MetricPlace[];
}

/**
 * A metric's place below its subtask's group, its kind and what a reporter reads of it, so a mirror on another
 * thread reports it as the same kind of metric (a counter as a counter, a histogram with its quantiles).
 */
export interface MetricPlace {
  /** The user groups from the subtask's group down: `[name]`, or `[name, value]` for a key-value group. */
  readonly groups: readonly (readonly string[])[];
  readonly name: string;
  readonly kind: MetricKind;
  /** A counter's or histogram's count, a meter's rate, a gauge's value as a number (see `metricValue`). */
  readonly value: number;
  /** A meter's count of events. */
  readonly count?: number;
  /** A histogram's values as its statistics hold them (its window), sorted ascending. */
  readonly values?: readonly number[];
}

/**
 * The figures of `subtask`, read now; `registry` is the job's (undefined when metrics are off); with `places`, the
 * metrics' places too; with `gauges`, a gauge read lately at a cost is taken as read then (figures sent every tick).
 */
export function subtaskFigures(
  subtask: Subtask,
  registry: MetricRegistry | undefined,
  places: boolean,
  gauges: GaugeReadBudget | undefined = undefined,
): SubtaskFigures {
  const metrics: Record<string, number> = {};
  const placed: MetricPlace[] | undefined = places ? [] : undefined;
  if (registry !== undefined) {
    for (const m of registry.all()) {
      if (!m.group.isWithin(subtask.metricGroup)) continue;
      let value: number;
      let place: MetricPlace | undefined = undefined;
      try {
        value = gauges !== undefined ? gauges.value(m.metric) : metricValue(m.metric);
        if (placed !== undefined) {
          place = metricPlace(m.metric, groupsBelow(m.group, subtask.metricGroup), m.name, value);
        }
      } catch {
        // a user metric that throws: left out of these figures, as a reporter leaves it out of a report
        continue;
      }
      metrics[[...m.group.userPath, m.name].join('.')] = value;
      if (place !== undefined) placed!.push(place);
    }
  }
  let recordsIn = 0;
  if (subtask.node.transformation.kind === 'source') recordsIn = subtask.output.recordsOut;
  else for (const input of subtask.inputs) recordsIn += input.recordsIn;
  const time = subtask.time;
  return {
    index: subtask.index,
    finished: subtask.isFinished,
    recordsIn,
    recordsOut: subtask.output.recordsOut,
    currentInputWatermark: subtask.currentWatermark,
    currentOutputWatermark: subtask.output.currentWatermark,
    busyTimeMsPerSecond: time.busyTimeMsPerSecond,
    backPressuredTimeMsPerSecond: time.backPressuredTimeMsPerSecond,
    idleTimeMsPerSecond: time.idleTimeMsPerSecond,
    metrics,
    ...(placed !== undefined ? { places: placed } : {}),
  };
}

/** What a mirror needs of `metric` to report it as its own kind (`value` read already). */
function metricPlace(metric: Metric, groups: string[][], name: string, value: number): MetricPlace {
  const kind = metricKind(metric);
  if (kind === 'meter') return { groups, name, kind, value, count: (metric as Meter).getCount() };
  if (kind === 'histogram') {
    // Copied before sorting: a user's histogram may hand out the array it keeps.
    const values = [...(metric as Histogram).getStatistics().getValues()].sort((a, b) => a - b);
    return { groups, name, kind, value, values };
  }
  return { groups, name, kind, value };
}

/**
 * The user groups from `top` down to `group`, which lies within it (each adds `[name]` or `[name, value]` to its
 * scope components).
 */
function groupsBelow(group: MetricGroupImpl, top: MetricGroupImpl): string[][] {
  const groups: string[][] = [];
  for (let g = group; g !== top; g = g.parent!) {
    groups.push(g.getScopeComponents().slice(g.parent!.getScopeComponents().length));
  }
  return groups.reverse();
}
