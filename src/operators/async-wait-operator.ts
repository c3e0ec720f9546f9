// AsyncWaitOperator: async I/O: a bounded number of Promises in flight, results in order or between watermarks.
import type { AsyncFunction, RichAsyncFunction } from '../core/async-function.ts';
import type { AsyncRetryStrategy } from '../core/async-retry-strategy.ts';
import { AsyncTimeoutError } from '../core/async-timeout-error.ts';
import { ConfigurationError } from '../core/errors.ts';
import type { ScheduledCallback } from '../core/clock.ts';
import { AbstractStreamOperator, type OneInputStreamOperator } from './stream-operator.ts';
import { closeFunction, instantiateFunction, openFunction } from './user-function.ts';
import type { OperatorStateDistribution } from './operator-state-distribution.ts';

/** Whether results keep the input order, or may overtake each other between two watermarks. */
export type AsyncOutputMode = 'ordered' | 'unordered';

/** One input element in a checkpoint: a record, or a watermark that was queued behind records. */
export type AsyncQueuedElement = { value: unknown; timestamp: number } | { watermark: number };

/** A record or watermark the operator holds until it can be emitted (Flink's StreamElementQueueEntry). */
class Entry {
  /** Calls made for this record; a result of an earlier call (timed out, retried) is ignored. */
  attempt = 0;
  done = false;
  emitted = false;
  result: unknown = undefined;
  /** Order of completion, for unordered mode's emission order within a segment. */
  completion = 0;
  deadline = Number.POSITIVE_INFINITY;
  retry: ScheduledCallback | undefined = undefined;
  constructor(
    readonly seq: number,
    readonly isWatermark: boolean,
    public value: unknown,
    readonly timestamp: number,
  ) {}
}

/**
 * Flink's AsyncWaitOperator. Each record starts one call of the async function; at most `capacity` elements
 * (records in flight, results not yet emitted, and queued watermarks, as Flink counts them) are admitted at once.
 * Elements arriving while it is full wait, not started, and the operator holds its upstream sources back until it
 * has room, so what waits is at most one source batch. Results carry their input's timestamp.
 *
 * Ordered mode emits results in input order. Unordered mode emits a result as soon as it is complete, but never
 * across a watermark: a watermark is emitted once every record before it was, and records after it only after
 * it. Timeouts use one processing-time callback for the earliest deadline (deadlines are monotone in admission
 * order, since every call gets the same timeout), so a record costs its Promise, one `then` and one entry.
 * Checkpoints store every element not yet emitted; a restore calls the function again for them.
 */
export class AsyncWaitOperator<IN, OUT>
  extends AbstractStreamOperator<OUT>
  implements OneInputStreamOperator<IN, OUT>
{
  private readonly fn: AsyncFunction<IN, OUT>;
  private queue: Entry[] = [];
  private head = 0;
  /** Admitted elements not yet emitted. */
  private admitted = 0;
  /** Calls started and not yet settled. */
  private inFlight = 0;
  /** Elements that arrived while full, in order; not started. */
  private waiting: Entry[] = [];
  private waitingHead = 0;
  /** Admitted watermarks not yet emitted, in order: they bound unordered mode's segments. */
  private watermarks: Entry[] = [];
  private watermarksHead = 0;
  private seq = 0;
  private completions = 0;
  private timer: ScheduledCallback | undefined = undefined;
  private blocked = false;
  private pumping = false;
  private stopped = false;
  private restored: AsyncQueuedElement[] | undefined = undefined;
  private endOfInput: { resolve: () => void; reject: (error: unknown) => void } | undefined = undefined;

  constructor(
    fn: AsyncFunction<IN, OUT>,
    private readonly timeoutMs: number,
    private readonly capacity: number,
    private readonly mode: AsyncOutputMode,
    private readonly retry: AsyncRetryStrategy<OUT> | undefined = undefined,
  ) {
    super();
    if (typeof fn !== 'function' && (fn === null || typeof fn?.asyncInvoke !== 'function')) {
      throw new ConfigurationError(
        'Async I/O needs a function returning a Promise, or an object with an asyncInvoke method',
      );
    }
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new ConfigurationError(`Async I/O capacity must be a positive integer, got ${capacity}`);
    if (!(timeoutMs >= 0) || Number.isNaN(timeoutMs))
      throw new ConfigurationError(`Async I/O timeout must be >= 0 ms (0: none), got ${timeoutMs}`);
    this.fn = instantiateFunction(fn);
  }

  override async open(): Promise<void> {
    await openFunction(this.fn, this.context.runtimeContext);
    const restored = this.restored;
    this.restored = undefined;
    if (restored === undefined) return;
    // Elements in flight at the checkpoint are called again, in their original order.
    for (const element of restored) {
      if ('watermark' in element) this.enqueue(new Entry(this.seq++, true, undefined, element.watermark));
      else this.enqueue(new Entry(this.seq++, false, element.value, element.timestamp));
    }
  }

  processElement(value: IN, timestamp: number): void {
    this.enqueue(new Entry(this.seq++, false, value, timestamp));
  }

  override processWatermark(watermark: number): void {
    this.enqueue(new Entry(this.seq++, true, undefined, watermark));
  }

  override endInput(): void | Promise<void> {
    if (this.admitted === 0 && this.waitingCount() === 0) return;
    return new Promise<void>((resolve, reject) => (this.endOfInput = { resolve, reject }));
  }

  override snapshotOperatorState(): unknown {
    const elements: AsyncQueuedElement[] = [];
    const add = (e: Entry) => {
      if (e.emitted) return;
      elements.push(e.isWatermark ? { watermark: e.timestamp } : { value: e.value, timestamp: e.timestamp });
    };
    for (let i = this.head; i < this.queue.length; i++) add(this.queue[i]!);
    for (let i = this.waitingHead; i < this.waiting.length; i++) add(this.waiting[i]!);
    return elements.length === 0 ? undefined : elements;
  }

  /** `states` holds the in-flight elements of one or more old subtasks (several at a lower parallelism). */
  override restoreOperatorState(states: unknown): void {
    const lists = states as AsyncQueuedElement[][];
    // Merged from several old subtasks, a queued watermark of one would overtake the records of another; the
    // sources' watermarks after the restore supersede them, so keep records only.
    this.restored = lists.length === 1 ? lists[0]! : lists.flat().filter((e) => !('watermark' in e));
  }

  /** Every old subtask's elements in flight are called again somewhere, whatever the new parallelism. */
  override get operatorStateDistribution(): OperatorStateDistribution {
    return 'redistribute';
  }

  override close(): void | Promise<void> {
    this.stop();
    return closeFunction(this.fn);
  }

  /** Number of elements admitted and not yet emitted plus those waiting for room (for tests and metrics). */
  get queuedElements(): number {
    return this.admitted + this.waitingCount();
  }

  private waitingCount(): number {
    return this.waiting.length - this.waitingHead;
  }

  private enqueue(entry: Entry): void {
    if (this.waitingCount() > 0 || this.admitted >= this.capacity) this.waiting.push(entry);
    else this.admit(entry);
    this.pump();
  }

  private admit(entry: Entry): void {
    this.queue.push(entry);
    this.admitted++;
    if (entry.isWatermark) this.watermarks.push(entry);
    else this.start(entry);
  }

  private start(entry: Entry): void {
    this.inFlight++;
    if (this.timeoutMs > 0) {
      entry.deadline = this.context.clock.now() + this.timeoutMs;
      if (this.timer === undefined) this.scheduleTimeout(entry.deadline);
    }
    this.invoke(entry);
  }

  private invoke(entry: Entry): void {
    const attempt = ++entry.attempt;
    const fn = this.fn;
    let promise: Promise<OUT>;
    try {
      promise =
        typeof fn === 'function'
          ? fn(entry.value as IN)
          : (fn as RichAsyncFunction<IN, OUT>).asyncInvoke(entry.value as IN);
    } catch (error) {
      this.fail(error, entry, 'the async call');
      return;
    }
    if (promise === null || typeof (promise as Partial<Promise<OUT>>)?.then !== 'function') {
      this.fail(
        new ConfigurationError(
          `The async function returned ${promise === null ? 'null' : typeof promise}, not a Promise`,
        ),
        entry,
        'the async call',
      );
      return;
    }
    promise.then(
      (result) => this.settled(entry, attempt, result, false),
      (error: unknown) => this.settled(entry, attempt, error, true),
    );
  }

  /** A call settled: retry it, fail the job, or complete the entry and emit what became emittable. */
  private settled(entry: Entry, attempt: number, outcome: unknown, isError: boolean): void {
    if (this.stopped || entry.done || entry.attempt !== attempt) return;
    const retry = this.retry;
    if (retry !== undefined && entry.attempt < retry.maxAttempts) {
      const again = isError
        ? (retry.ifException?.(outcome) ?? true)
        : (retry.ifResult?.(outcome as OUT) ?? false);
      if (again) {
        const at = this.context.clock.now() + retry.backoffMs(entry.attempt);
        entry.retry = this.context.clock.schedule(at, () => {
          entry.retry = undefined;
          if (!this.stopped && !entry.done) this.invoke(entry);
        });
        return;
      }
    }
    if (isError) {
      this.fail(outcome, entry, 'the async call');
      return;
    }
    this.complete(entry, outcome);
  }

  private complete(entry: Entry, result: unknown): void {
    entry.done = true;
    entry.result = result;
    entry.completion = ++this.completions;
    this.inFlight--;
    if (this.inFlight === 0 && this.timer !== undefined) {
      this.timer.cancel();
      this.timer = undefined;
    }
    try {
      if (this.mode === 'unordered' && this.inFirstSegment(entry)) this.emitRecord(entry);
      this.pump();
    } catch (error) {
      this.fail(error, undefined, 'an async result');
    }
  }

  private inFirstSegment(entry: Entry): boolean {
    if (this.watermarksHead === this.watermarks.length) return true;
    // Stryker disable next-line EqualityOperator: a record and a watermark never share a sequence number
    return entry.seq < this.watermarks[this.watermarksHead]!.seq;
  }

  /**
   * Emits whatever the head of the queue allows, admits waiting elements as room frees, and repeats until
   * nothing moves; then applies or lifts backpressure and completes a pending end of input.
   */
  private pump(): void {
    if (this.pumping || this.stopped) return;
    this.pumping = true;
    try {
      for (;;) {
        this.drainHead();
        let admittedAny = false;
        while (this.waitingCount() > 0 && this.admitted < this.capacity) {
          const next = this.waiting[this.waitingHead]!;
          this.waiting[this.waitingHead++] = undefined as never;
          this.admit(next);
          admittedAny = true;
        }
        if (this.waitingHead > 0 && this.waitingHead === this.waiting.length) {
          this.waiting = [];
          this.waitingHead = 0;
        }
        if (!admittedAny) break;
      }
    } finally {
      this.pumping = false;
    }
    this.compact();
    const full = this.waitingCount() > 0 || this.admitted >= this.capacity;
    if (full !== this.blocked) {
      this.blocked = full;
      this.context.setBackpressure(full);
    }
    if (this.endOfInput !== undefined && this.admitted === 0 && this.waitingCount() === 0) {
      const end = this.endOfInput;
      this.endOfInput = undefined;
      end.resolve();
    }
  }

  private drainHead(): void {
    const queue = this.queue;
    while (this.head < queue.length) {
      const entry = queue[this.head]!;
      if (entry.emitted) {
        queue[this.head++] = undefined as never;
        continue;
      }
      if (entry.isWatermark) {
        entry.emitted = true;
        this.admitted--;
        this.watermarks[this.watermarksHead++] = undefined as never;
        queue[this.head++] = undefined as never;
        super.processWatermark(entry.timestamp);
        if (this.mode === 'unordered') this.emitCompletedOfFirstSegment();
        continue;
      }
      if (this.mode === 'ordered' && entry.done) {
        this.emitRecord(entry);
        queue[this.head++] = undefined as never;
        continue;
      }
      break;
    }
  }

  /** After a watermark: the records behind it that completed meanwhile go out, in completion order. */
  private emitCompletedOfFirstSegment(): void {
    const done: Entry[] = [];
    for (let i = this.head; i < this.queue.length; i++) {
      const e = this.queue[i]!;
      if (e.isWatermark) break;
      if (e.done && !e.emitted) done.push(e);
    }
    done.sort((a, b) => a.completion - b.completion);
    for (const e of done) this.emitRecord(e);
  }

  private emitRecord(entry: Entry): void {
    entry.emitted = true;
    this.admitted--;
    const result = entry.result as OUT;
    entry.result = undefined;
    entry.value = undefined;
    this.output.collect(result, entry.timestamp);
  }

  /** Drops emitted entries from the front, and from the middle when unordered results pile up behind a slow head. */
  private compact(): void {
    if (this.head > 0 && this.head === this.queue.length) {
      this.queue = [];
      this.head = 0;
    } else if (this.head > 1024 || this.queue.length - this.head > 4 * this.capacity + 64) {
      this.queue = this.queue.slice(this.head).filter((e) => !e.emitted);
      this.head = 0;
    }
    if (this.watermarksHead > 0 && this.watermarksHead === this.watermarks.length) {
      this.watermarks = [];
      this.watermarksHead = 0;
    } else if (this.watermarksHead > 1024) {
      // A watermark always queued behind a record in flight (a watermark per record, the capacity in use) never
      // empties the list: its emitted front is dropped as the queue's is.
      this.watermarks = this.watermarks.slice(this.watermarksHead);
      this.watermarksHead = 0;
    }
  }

  private scheduleTimeout(deadline: number): void {
    this.timer = this.context.clock.schedule(deadline, (now) => this.onTimeoutTimer(now));
  }

  /** Times out every call whose deadline passed (they are in admission order), then waits for the next one. */
  private onTimeoutTimer(now: number): void {
    this.timer = undefined;
    if (this.stopped) return;
    // The calls due are collected first: timing one out emits what it unblocks, which moves the queue's head (the
    // entries before it are cleared) and may compact the queue.
    const due: Entry[] = [];
    for (let i = this.head; i < this.queue.length; i++) {
      const entry = this.queue[i]!;
      if (entry.isWatermark || entry.done || entry.emitted) continue;
      if (entry.deadline > now) break;
      due.push(entry);
    }
    for (const entry of due) {
      this.timeOut(entry);
      if (this.stopped) return;
    }
    this.rescheduleTimeout();
  }

  /** Calls admitted while timing out may have scheduled a later timer: the earliest deadline in flight decides. */
  private rescheduleTimeout(): void {
    this.timer?.cancel();
    this.timer = undefined;
    for (let i = this.head; i < this.queue.length; i++) {
      const entry = this.queue[i]!;
      if (entry.isWatermark || entry.done || entry.emitted) continue;
      this.scheduleTimeout(entry.deadline);
      break;
    }
  }

  private timeOut(entry: Entry): void {
    entry.retry?.cancel();
    entry.retry = undefined;
    const handler = typeof this.fn === 'function' ? undefined : this.fn.timeout;
    if (handler === undefined) {
      this.fail(new AsyncTimeoutError(this.timeoutMs), entry, 'the async call');
      return;
    }
    let fallback: OUT;
    try {
      fallback = handler.call(this.fn, entry.value as IN);
    } catch (error) {
      this.fail(error, entry, 'the timeout handler');
      return;
    }
    entry.attempt++;
    this.complete(entry, fallback);
  }

  private fail(error: unknown, entry: Entry | undefined, activity: string): void {
    if (this.stopped) return;
    const record =
      entry !== undefined && !entry.isWatermark
        ? { value: entry.value, timestamp: entry.timestamp }
        : undefined;
    this.stop();
    this.context.failJob(error, record, activity);
    if (this.endOfInput !== undefined) {
      const end = this.endOfInput;
      this.endOfInput = undefined;
      end.reject(error);
    }
  }

  /** No more calls, timeouts or emissions (the job failed or is closing); late results are ignored. */
  private stop(): void {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = undefined;
    for (let i = this.head; i < this.queue.length; i++) this.queue[i]?.retry?.cancel();
    if (this.blocked) {
      this.blocked = false;
      this.context.setBackpressure(false);
    }
  }
}
