// Subtask metrics: registers Flink's task and operator metrics of one subtask, all read from plain fields.
import { FieldCounter } from '../metrics/counter.ts';
import { MeterView } from '../metrics/meter.ts';
import { MIN_WATERMARK } from '../core/time-domain.ts';
import type { Subtask } from './subtask.ts';

/** The span of the per-second rates: short, so a dashboard follows the job within seconds (Flink: 60 s). */
export const RATE_SPAN_SECONDS = 5;

/**
 * Registers a subtask's built-in metrics under Flink's names. Every value is read from a field the record path
 * already keeps (records in/out, watermarks) or the busy-time tracker fills; nothing is added per record.
 * Operators add their own (numLateRecordsDropped, CEP and window gauges) in `setup`.
 */
export function registerSubtaskMetrics(subtask: Subtask): void {
  const group = subtask.metricGroup;
  const inputs = subtask.inputs;
  const output = subtask.output;
  const isSource = subtask.node.transformation.kind === 'source';
  // A source's records in are the records its reader produced (as Flink's source operators report them).
  const recordsIn = new FieldCounter(
    isSource
      ? () => output.recordsOut
      : () => {
          let n = 0;
          for (let i = 0; i < inputs.length; i++) n += inputs[i]!.recordsIn;
          return n;
        },
  );
  const recordsOut = new FieldCounter(() => output.recordsOut);
  group.counter('numRecordsIn', recordsIn);
  group.counter('numRecordsOut', recordsOut);
  group.meter('numRecordsInPerSecond', new MeterView(recordsIn, RATE_SPAN_SECONDS));
  group.meter('numRecordsOutPerSecond', new MeterView(recordsOut, RATE_SPAN_SECONDS));
  group.gauge('currentInputWatermark', { getValue: () => subtask.currentWatermark });
  group.gauge('currentOutputWatermark', { getValue: () => output.currentWatermark });
  const clock = subtask.context.clock;
  // Flink's watermarkLag: how far the subtask's event time trails its processing time.
  group.gauge('watermarkLag', {
    getValue: () =>
      output.currentWatermark === MIN_WATERMARK ? Number.NaN : clock.now() - output.currentWatermark,
  });
  const time = subtask.time;
  group.gauge('busyTimeMsPerSecond', { getValue: () => time.busyTimeMsPerSecond });
  group.gauge('backPressuredTimeMsPerSecond', { getValue: () => time.backPressuredTimeMsPerSecond });
  group.gauge('idleTimeMsPerSecond', { getValue: () => time.idleTimeMsPerSecond });
  if (isSource) group.gauge('sourceIdle', { getValue: () => (output.idle ? 1 : 0) });
  const backend = subtask.backend;
  // what a snapshot would hold, counted by the operator (read between record calls)
  if (backend !== undefined) {
    const operator = subtask.operator;
    group.gauge('numStateEntries', { getValue: () => operator.countKeyedStateEntries(backend) });
  }
  group.gauge('checkpointAlignmentTime', { getValue: () => subtask.checkpointAlignmentTime });
  group.gauge('checkpointedStateSize', { getValue: () => subtask.checkpointedStateSize });
}
