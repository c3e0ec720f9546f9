// ThreadExchangeFigures: what this thread's exchange did, counted per batch and per credit wait, never per record.
import { DOUBLE_ZERO } from '../core/stable-hidden-classes.ts';

/**
 * Cumulative counts of one thread's exchange (every job it ran), for diagnosing worker mode: how often a producer
 * waited for credit and how long, and how far the watermark of a channel from another thread ran ahead of what its
 * consumer had reached. A reader takes the difference between two reads (`bench/weir/worker-cpu.ts` reads them in
 * each worker between runs). Counted per batch or per credit wait, so the record path pays nothing.
 */
export interface ThreadExchangeFigures {
  /** Batches sent to other threads. */
  batchesSent: number;
  /** Batches received from other threads and replayed. */
  batchesReceived: number;
  /** Times an outbound channel ran out of credit with a batch to send (its sources were then held back). */
  congestions: number;
  /** Time outbound channels spent out of credit (ms, summed over channels). */
  congestedMs: number;
  /**
   * After each received batch that carried a watermark: how far that channel's watermark was ahead of its consumer's
   * combined watermark (event-time ms, summed; 0 when this channel is the one holding the consumer back). Divided by
   * {@link watermarkSamples} it says how much event time a consumer keeps waiting for because its other inputs lag:
   * the elements, windows and partial matches it holds for that long beyond what one thread would hold.
   */
  watermarkLeadMs: number;
  watermarkSamples: number;
  /** Times a source subtask of this thread paused for watermark alignment (every subtask it could poll was ahead). */
  alignmentPauses: number;
  /** Time those pauses took (ms of real time, summed). */
  alignmentPausedMs: number;
  /**
   * Times this thread's bounded sources waited for the same sources' subtasks on other threads (every subtask it could
   * poll was batches ahead, see SourceTurns), and the real time those waits took (ms, summed).
   */
  turnWaits: number;
  turnWaitMs: number;
  /**
   * Worker threads: time from the end of this thread's sources to the end of its last subtask, per job, summed (ms):
   * what it waited for at the end of a bounded job, mostly the other threads' last batches.
   */
  endWaitMs: number;
}

// The times start as doubles, so the first fraction added (in whichever job) gives the object no new hidden class.
const figures: ThreadExchangeFigures = {
  batchesSent: 0,
  batchesReceived: 0,
  congestions: 0,
  congestedMs: DOUBLE_ZERO,
  watermarkLeadMs: DOUBLE_ZERO,
  watermarkSamples: 0,
  alignmentPauses: 0,
  alignmentPausedMs: DOUBLE_ZERO,
  turnWaits: 0,
  turnWaitMs: DOUBLE_ZERO,
  endWaitMs: DOUBLE_ZERO,
};

/** This thread's exchange figures since it started (module state: each worker thread has its own). */
export function threadExchangeFigures(): Readonly<ThreadExchangeFigures> {
  return figures;
}

/** The figures the exchange and its channels add to (internal to the runtime). */
export function mutableExchangeFigures(): ThreadExchangeFigures {
  return figures;
}
