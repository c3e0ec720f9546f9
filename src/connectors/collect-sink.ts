// CollectSink: gathers a stream's records in memory, for tests and scripts.
import type { Sink, SinkWriter } from '../core/sink.ts';

/** A collected record with its timestamp (undefined when it has none). */
export interface CollectedRecord<T> {
  readonly value: T;
  readonly timestamp: number | undefined;
}

/**
 * Keeps every record it receives, across all its subtasks, in arrival order.
 *
 * @example
 * const sink = new CollectSink<number>();
 * env.fromElements(1, 2, 3).map((x) => x * 2).sinkTo(sink);
 * await env.execute();
 * sink.values; // [2, 4, 6]
 */
export class CollectSink<T> implements Sink<T> {
  readonly records: CollectedRecord<T>[] = [];
  /** The records live in this object: in worker mode its subtasks run on the main thread, where it was created. */
  readonly runsOnMainThread = true;

  get values(): T[] {
    return this.records.map((r) => r.value);
  }

  clear(): void {
    this.records.length = 0;
  }

  createWriter(): SinkWriter<T> {
    const records = this.records;
    return {
      write(value, timestamp) {
        records.push({ value, timestamp });
      },
    };
  }
}
