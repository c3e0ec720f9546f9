// limit-p2's transport: a single-producer single-consumer ring of flat numeric records in a SharedArrayBuffer, one per
// direction, and a doorbell per thread so a thread with nothing to do sleeps in Atomics.wait until the other moves.
//
// Cost model: a record is `width` Float64 stores on one side and as many loads on the other; publishing (one atomic
// store, one atomic add and a notify) is paid once per batch of records, not per record. No message, no event loop,
// no copy of a buffer: the cheapest crossing measured here (docs/performance.md, "The two-thread ceiling").

/** Int32 slots of the control array; each counter sits on its own 64-byte line so the two threads do not share one. */
const WRITTEN = 0; // records published by the writer (monotonic)
const READ = 16; // records consumed by the reader (monotonic)
const CONTROL_INTS = 32;

/** The shared memory of one direction: its control words and its records. */
export interface RingBuffers {
  readonly control: SharedArrayBuffer;
  readonly data: SharedArrayBuffer;
  /** Records the ring holds (a power of two), of at most `maxWidth` Float64 fields each. */
  readonly capacity: number;
  readonly maxWidth: number;
}

export function createRingBuffers(capacity: number, maxWidth: number): RingBuffers {
  if (capacity < 2 || (capacity & (capacity - 1)) !== 0)
    throw new RangeError(`ring capacity must be a power of two >= 2, got ${capacity}`);
  return {
    control: new SharedArrayBuffer(CONTROL_INTS * 4),
    data: new SharedArrayBuffer(capacity * maxWidth * 8),
    capacity,
    maxWidth,
  };
}

/** Empties a ring between runs; only while neither thread uses it. */
export function resetRing(buffers: RingBuffers): void {
  const control = new Int32Array(buffers.control);
  Atomics.store(control, WRITTEN, 0);
  Atomics.store(control, READ, 0);
}

/**
 * The two doorbells of a pair of threads: thread t sleeps on word t * 16 and the other thread rings it after each
 * publish and each consumed batch, so a sleeping thread wakes on any progress that could let it continue.
 */
export function createDoorbells(): SharedArrayBuffer {
  return new SharedArrayBuffer(32 * 4);
}

export class Doorbell {
  private readonly words: Int32Array;
  private readonly own: number;
  private readonly other: number;

  constructor(buffer: SharedArrayBuffer, thread: number) {
    this.words = new Int32Array(buffer);
    this.own = thread * 16;
    this.other = (1 - thread) * 16;
  }

  /** The own bell's count: read it before checking for work, and pass it to {@link sleep}. */
  seen(): number {
    return Atomics.load(this.words, this.own);
  }

  /** Sleeps until the other thread rings after `seen` was read (returns at once if it already has). */
  sleep(seen: number): void {
    Atomics.wait(this.words, this.own, seen);
  }

  ring(): void {
    Atomics.add(this.words, this.other, 1);
    Atomics.notify(this.words, this.other);
  }
}

/**
 * The writing end. A writer first {@link reserve}s room for a batch, then writes records at {@link offset}s of the
 * counter it keeps ({@link written}), with no check per record, and makes them visible with {@link publish}.
 */
export class RingWriter {
  readonly data: Float64Array;
  private readonly control: Int32Array;
  private readonly mask: number;
  private readonly width: number;
  /** Records written so far (monotonic): the next record goes at offset(written). */
  written: number;
  private published: number;
  private readLimit: number; // written may reach this without reading the reader's counter again

  /** `width`: this run's Float64 fields per record, at most the buffers' `maxWidth`. */
  constructor(buffers: RingBuffers, width: number) {
    if (width > buffers.maxWidth)
      throw new RangeError(`records of ${width} fields in a ring of ${buffers.maxWidth}`);
    this.data = new Float64Array(buffers.data);
    this.control = new Int32Array(buffers.control);
    this.mask = buffers.capacity - 1;
    this.width = width;
    this.written = Atomics.load(this.control, WRITTEN);
    this.published = this.written;
    this.readLimit = Atomics.load(this.control, READ) + buffers.capacity;
  }

  /** True when `records` more fit; the reader's counter is read only when the cached one says they might not. */
  reserve(records: number): boolean {
    if (this.written + records <= this.readLimit) return true;
    this.readLimit = Atomics.load(this.control, READ) + this.mask + 1;
    return this.written + records <= this.readLimit;
  }

  /** The offset in {@link data} of record number `index`'s first field. */
  offset(index: number): number {
    return (index & this.mask) * this.width;
  }

  /** Makes the records up to {@link written} visible to the reader; true when there were new ones. */
  publish(): boolean {
    if (this.written === this.published) return false;
    this.published = this.written;
    Atomics.store(this.control, WRITTEN, this.written);
    return true;
  }
}

/** The reading end: {@link available} records from {@link next} on, then {@link release} them. */
export class RingReader {
  readonly data: Float64Array;
  private readonly control: Int32Array;
  private readonly mask: number;
  private readonly width: number;
  private read = 0;

  /** `width`: this run's Float64 fields per record, at most the buffers' `maxWidth`. */
  constructor(buffers: RingBuffers, width: number) {
    if (width > buffers.maxWidth)
      throw new RangeError(`records of ${width} fields in a ring of ${buffers.maxWidth}`);
    this.data = new Float64Array(buffers.data);
    this.control = new Int32Array(buffers.control);
    this.mask = buffers.capacity - 1;
    this.width = width;
    this.read = Atomics.load(this.control, READ);
  }

  /** Published records not yet read. */
  available(): number {
    return Atomics.load(this.control, WRITTEN) - this.read;
  }

  /** The offset of the next unread record's first field; the caller reads it and calls {@link advance}. */
  next(): number {
    return (this.read & this.mask) * this.width;
  }

  advance(): void {
    this.read++;
  }

  /** Gives the records read so far back to the writer. */
  release(): void {
    Atomics.store(this.control, READ, this.read);
  }
}
