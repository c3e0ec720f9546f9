// KeptBatchBuffers: the buffers of typed record batches a thread keeps when a job's exchange closes, for its next job.

/**
 * At most this many bytes of buffers are kept per thread between jobs: a channel of four-number records at 16,384
 * events per batch circulates up to five buffers of 786 kB (its credits and the open batch), so this keeps a few
 * channels' worth, and a thread that ran a wide job does not hold all of its buffers for the next one.
 */
export const MAX_KEPT_BYTES = 16 * 1024 * 1024;

/** This thread's kept buffers (module state: each worker thread has its own), in no order. */
const kept: Float64Array<ArrayBuffer>[] = [];
let keptBytes = 0;

/**
 * Keeps a buffer a closing exchange no longer needs (a channel's open batch, its spares, the buffers a consumer held
 * to give back), unless the thread keeps enough already.
 *
 * Why: a job's channels otherwise start with a buffer of 256 records, double it until the batches fit (16,384 events
 * in the bench's jobs: seven buffers, each new) and allocate every further buffer anew until the consumer's returned
 * ones circulate. Fresh memory of that size comes from the kernel, which clears every page of it: 3.6 % of a kept
 * worker's samples in a rolling count (docs/performance.md, "The workers' young generation beside the main thread's").
 * A kept worker's next job starts with the buffers its last one grew.
 */
export function keepBatchBuffer(buffer: Float64Array<ArrayBuffer>): void {
  const bytes = buffer.buffer.byteLength;
  // A transferred buffer is detached (no bytes): nothing to keep.
  if (bytes < 8 || keptBytes + bytes > MAX_KEPT_BYTES) return;
  kept.push(buffer.length * 8 === bytes ? buffer : new Float64Array(buffer.buffer));
  keptBytes += bytes;
}

/** The largest kept buffer if it holds at least `length` numbers (and stops keeping it), else undefined. */
export function takeKeptBatchBuffer(length: number): Float64Array<ArrayBuffer> | undefined {
  let best = -1;
  for (let i = 0; i < kept.length; i++) {
    if (kept[i]!.length >= length && (best < 0 || kept[i]!.length > kept[best]!.length)) best = i;
  }
  if (best < 0) return undefined;
  const buffer = kept[best]!;
  kept[best] = kept[kept.length - 1]!;
  kept.pop();
  keptBytes -= buffer.byteLength;
  return buffer;
}

/** Bytes this thread keeps now (for tests and diagnostics). */
export function keptBatchBufferBytes(): number {
  return keptBytes;
}
