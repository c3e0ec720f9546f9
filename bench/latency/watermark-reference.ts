// For outputs that wait on event time (a timer, a CEP match): the first event after which a watermark passing the
// needed time could exist, computed from the generator. Java twin: bench/flink/.../LatencyRecorder.java.
import { type EventStreamConfig, fillEvent, newEvent } from '../workloads/generator.ts';

/**
 * `table[m]` is the index of the first event whose arrival brings the largest timestamp seen to at least
 * `baseTimestamp + m`. A bounded out-of-orderness watermark is `max seen − bound − 1`, so a watermark ≥ T can exist
 * only once the maximum reaches T + bound + 1: the event `table[T + bound + 1 − base]`. One pass over the input;
 * the table has one entry per millisecond of event time (events / 100 at the default rate).
 */
export class WatermarkReference {
  private readonly table: Int32Array;

  constructor(
    private readonly stream: EventStreamConfig,
    events: number,
  ) {
    const event = newEvent();
    const spanMs = Math.ceil((events * 1000) / stream.eventsPerSecond) + stream.outOfOrdernessMs + 1;
    const table = new Int32Array(spanMs);
    let filled = 0;
    for (let i = 0; i < events; i++) {
      const relative = fillEvent(stream, i, event).ts - stream.baseTimestamp;
      while (filled <= relative) table[filled++] = i;
    }
    this.table = table.subarray(0, filled);
  }

  /**
   * The first event after which a watermark ≥ `time` could exist, or -1 when no event of the input brings one: only
   * the final watermark at the end of the bounded input passes `time`. Such outputs are verified but not timed (an
   * unbounded stream has no end that releases them).
   */
  indexFor(time: number): number {
    const m = time + this.stream.outOfOrdernessMs + 1 - this.stream.baseTimestamp;
    if (m < 0) return 0;
    return m < this.table.length ? this.table[m]! : -1;
  }
}
