// One thread of limit-p2: generates its half of the input (indices thread, thread + 2, ... as weir-p2's source
// subtasks do), routes each record by Weir's key-group assignment, keeps its own in-thread and writes the others into
// the ring to the other thread, builds received records as objects, and runs a workload's per-key loop on both; in
// event time its watermark is the minimum of the two sources'. No per-workload shortcut: the routing, the crossing and
// the watermark are what any engine at parallelism 2 must do.

import { DEFAULT_MAX_PARALLELISM } from '../../../src/state/key-group-range.ts';
import { keyGroupFor, normalizeKey } from '../../../src/state/key-hash.ts';
import type { ChecksumAccumulator } from '../../workloads/checksum.ts';
import type { WorkloadParams } from '../../workloads/params.ts';
import type { RecordCodec } from './record-codecs.ts';
import type { Doorbell, RingReader, RingWriter } from './thread-ring.ts';

/** A slot whose first field is negative is a marker: a watermark (its last field) or the end of the input. */
const WATERMARK = -1;
const END = -2;

/** Own records generated between two publishes (and watermark updates) of the ring. */
export const CHUNK = 1024;

/**
 * A workload's per-key logic on one thread. The thread calls {@link own} with the generator's scratch object (copy
 * what is kept), {@link received} with a record built from the ring (the loop's to keep), {@link watermark} when
 * the thread's watermark (the minimum of both sources') advances, and {@link finish} at the end of both inputs.
 */
export interface ThreadLoop<R> {
  readonly sink: ChecksumAccumulator;
  /** The object a received record is built in (a fresh one, or one from a pool the loop keeps). */
  newRecord(): R;
  own(record: R): void;
  received(record: R): void;
  watermark(watermark: number): void;
  finish(): void;
}

/** What a thread needs to run: its number (0 or 1), the ring to the other thread, the ring from it, its doorbell. */
export interface ThreadContext {
  readonly thread: number;
  readonly out: RingWriter;
  readonly input: RingReader;
  readonly bell: Doorbell;
}

/** How a workload uses the exchange. */
export interface LoopShape {
  /** Records are routed by key (false: every record stays on the thread that generated it). */
  readonly keyed: boolean;
  /** The loop reads watermarks (workloads in event time). */
  readonly eventTime: boolean;
}

export interface ThreadResult {
  readonly count: number;
  readonly sum: number;
  /** Records this thread sent to the other. */
  readonly sent: number;
  /** Records this thread generated. */
  readonly generated: number;
}

/**
 * How far (ms of event time) a thread's source may run ahead of the other's before it waits for it: watermark
 * alignment, as Flink's `withWatermarkAlignment` (in Weir opt-in), so that what waits for the slower side's watermark
 * stays bounded; two chunks of event time, since the other's watermark arrives once per chunk.
 */
export function alignmentLeadMs(eventsPerSecond: number): number {
  return Math.ceil((2 * CHUNK * 2 * 1000) / eventsPerSecond);
}

/** Runs this thread's half of the input through `loop`; returns its sink's figures. */
export function runThread<R>(
  context: ThreadContext,
  params: WorkloadParams,
  shape: LoopShape,
  codec: RecordCodec<R>,
  loop: ThreadLoop<R>,
): ThreadResult {
  const { thread, out, input, bell } = context;
  const threads = 2;
  const events = params.events;
  const bound = codec.outOfOrdernessMs(params);
  const maxParallelism = DEFAULT_MAX_PARALLELISM;
  const eventTime = shape.eventTime;
  const leadMs = alignmentLeadMs(codec.eventsPerSecond(params));
  const last = codec.width - 1; // a marker's watermark field
  const outData = out.data;
  const inData = input.data;
  const scratch = codec.create();
  let localMax = -Infinity;
  let localWatermark = -Infinity;
  let remoteWatermark = -Infinity;
  let combined = -Infinity;
  let sentWatermark = -Infinity;
  let remoteEnded = false;
  let sent = 0;
  let generated = 0;

  const advance = (): void => {
    const next = localWatermark < remoteWatermark ? localWatermark : remoteWatermark;
    if (next > combined) {
      combined = next;
      if (next !== Infinity) loop.watermark(next);
    }
  };

  /** Takes every published record from the other thread; false when there was none. */
  const drain = (): boolean => {
    const n = input.available();
    if (n === 0) return false;
    for (let k = 0; k < n; k++) {
      const at = input.next();
      const kind = inData[at] as number;
      if (kind >= 0) loop.received(codec.read(inData, at, loop.newRecord()));
      else if (kind === WATERMARK) {
        remoteWatermark = inData[at + last] as number;
        if (eventTime) advance();
      } else {
        remoteEnded = true;
        remoteWatermark = Infinity;
        if (eventTime) advance();
      }
      input.advance();
    }
    input.release();
    bell.ring();
    return true;
  };

  /** Waits, taking the other's records meanwhile (so neither blocks the other), until `records` fit in the outgoing ring. */
  const reserve = (records: number): void => {
    while (!out.reserve(records)) {
      if (out.publish()) bell.ring();
      const seen = bell.seen();
      if (!drain() && !out.reserve(records)) bell.sleep(seen);
    }
  };

  const sendMarker = (kind: number, ts: number): void => {
    reserve(1);
    const at = out.offset(out.written++);
    outData[at] = kind;
    outData[at + last] = ts;
  };

  if (!shape.keyed) {
    for (let i = thread; i < events; i += threads) {
      loop.own(codec.fill(params, i, scratch));
      generated++;
    }
    loop.finish();
    return { count: loop.sink.count, sum: loop.sink.sum, sent, generated };
  }

  let i = thread;
  while (i < events) {
    // Alignment: wait (taking the other's records) while this source is too far ahead of the other's.
    while (eventTime && !remoteEnded && localWatermark - remoteWatermark > leadMs) {
      const seen = bell.seen();
      if (!drain()) bell.sleep(seen);
    }
    const end = Math.min(events, i + CHUNK * threads);
    reserve(CHUNK); // room for every record of the chunk, so the loop writes with no check per record
    let written = out.written;
    for (; i < end; i += threads) {
      const record = codec.fill(params, i, scratch);
      generated++;
      const group = keyGroupFor(normalizeKey(codec.key(record)), maxParallelism);
      if ((((group * threads) / maxParallelism) | 0) === thread) loop.own(record);
      else codec.write(outData, out.offset(written++), record);
      if (eventTime) {
        const ts = codec.ts(record);
        if (ts > localMax) {
          localMax = ts;
          localWatermark = localMax - bound - 1;
          if (localWatermark > combined && remoteWatermark > combined) advance();
        }
      }
    }
    sent += written - out.written;
    out.written = written;
    if (eventTime && localWatermark > sentWatermark) {
      sendMarker(WATERMARK, localWatermark);
      sentWatermark = localWatermark;
    }
    if (out.publish()) bell.ring();
    drain();
  }
  sendMarker(END, Infinity);
  if (out.publish()) bell.ring();
  localWatermark = Infinity; // a finished source's watermark, as Flink's MAX_WATERMARK
  if (eventTime) advance();
  while (!remoteEnded) {
    const seen = bell.seen();
    if (!drain() && !remoteEnded) bell.sleep(seen);
  }
  loop.finish();
  return { count: loop.sink.count, sum: loop.sink.sum, sent, generated };
}
