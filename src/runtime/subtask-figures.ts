// SubtaskFigures: a subtask's live figures as plain data, read on its own thread and sent across threads.
import type { MetricRegistry } from '../metrics/metric-registry.ts';
import { metricValue } from '../metrics/metric.ts';
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
}

/** The figures of `subtask`, read now; `registry` is the job's (undefined when metrics are off). */
export function subtaskFigures(subtask: Subtask, registry: MetricRegistry | undefined): SubtaskFigures {
  const metrics: Record<string, number> = {};
  if (registry !== undefined) {
    for (const m of registry.all()) {
      if (!m.group.isWithin(subtask.metricGroup)) continue;
      try {
        metrics[[...m.group.userPath, m.name].join('.')] = metricValue(m.metric);
      } catch {
        // a user gauge that throws: left out of these figures, as a reporter leaves it out of a report
      }
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
  };
}
