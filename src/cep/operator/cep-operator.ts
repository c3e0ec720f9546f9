// CepOperator: runs a pattern's NFA per key over a stream, in event time (watermark-ordered) or processing time.
import { rejectPromiseResult } from '../../core/async-function-guard.ts';
import { IllegalStateError } from '../../core/errors.ts';
import type { Collector } from '../../core/functions.ts';
import type { OutputTag } from '../../core/output-tag.ts';
import { closeFunction, instantiateFunction, openFunction } from '../../operators/user-function.ts';
import { AbstractStreamOperator, type OneInputStreamOperator } from '../../operators/stream-operator.ts';
import { FieldCounter } from '../../metrics/counter.ts';
import type { InternalValueState } from '../../state/internal-state.ts';
import { VoidNamespace, voidNamespaceSerializer } from '../../state/namespace.ts';
import { ValueStateDescriptor } from '../../core/state-descriptor.ts';
import { structuredCloneSerializer, type TypeSerializer } from '../../core/type-serializer.ts';
import type { InternalTimer, InternalTimerService, Triggerable } from '../../time/internal-timer-service.ts';
import { hasTimestamp, NO_TIMESTAMP } from '../../core/time-domain.ts';
import {
  isTimedOutPartialMatchHandler,
  type PatternProcessContext,
  type PatternProcessFunction,
} from '../functions.ts';
import type { CompiledPattern } from '../nfa/compiler/nfa-compiler.ts';
import { NFA, type CepTimerService, type Match, type TimedOutMatch } from '../nfa/nfa.ts';
import type { NFAState } from '../nfa/nfa-state.ts';
import { nfaStateSerializer } from '../nfa/nfa-state-serializer.ts';
import { SharedBuffer } from '../nfa/shared-buffer/shared-buffer.ts';
import type { KeyedStateBackend } from '../../state/keyed-state-backend.ts';
import { SharedBufferAccessor } from '../nfa/shared-buffer/shared-buffer-accessor.ts';
import { LateRecordLog } from '../../operators/late-record-log.ts';
import { DueKeyQueue, type DueKey } from './due-key-queue.ts';
import type { NormalizedKey } from '../../state/key-hash.ts';
import {
  snapshotPartialMatches,
  type KeyMatchState,
  type PartialMatchQuery,
  type SubtaskPartialMatches,
} from './partial-match-snapshot.ts';

/** Orders events that share a timestamp (Flink's `EventComparator`); ties keep arrival order. */
export type EventComparator<T> = (a: T, b: T) => number;

const NFA_STATE_NAME = 'nfaStateName';
const EVENT_QUEUE_STATE_NAME = 'eventQueueStateName';

/**
 * A key's elements waiting for the watermark (event time) or the processing-time timer (with a comparator): the
 * first `size` slots of two parallel arrays, timestamps ascending, equal timestamps in arrival order (slots past
 * `size` are spare capacity, elements cleared). Plain data, so it fits one ValueState and survives snapshots (in
 * event time it is written there only before a snapshot, see CepKey); never empty while kept: an emptied queue is
 * reused for the next key that needs one.
 */
interface ElementQueue<T> {
  size: number;
  timestamps: number[];
  elements: (T | undefined)[];
}

/** Snapshots hold just the queued slots, as [timestamps, elements]. */
const elementQueueSerializer: TypeSerializer<ElementQueue<unknown>> = {
  serialize: (q) =>
    structuredCloneSerializer.serialize([
      q.timestamps.slice(0, q.size),
      // Stryker disable next-line MethodExpression: the slots past size hold undefined, and the restored size comes from the timestamps
      q.elements.slice(0, q.size),
    ]),
  deserialize: (bytes) => {
    const [timestamps, elements] = structuredCloneSerializer.deserialize(bytes) as [number[], unknown[]];
    return { size: timestamps.length, timestamps, elements };
  },
};

/**
 * A key the operator holds something for in event time: queued elements, an NFA state with partial matches, or both.
 * The record is the key's element queue itself (`size` > 0 while it holds elements; one object per key, not two);
 * queue and `nfaState` live here, on the heap, and are what the operator reads and changes: neither buffering an
 * element nor waking the key touches keyed state. They reach keyed state only before a snapshot
 * ({@link CepOperator.prepareKeyedStateSnapshot}): `dirty` says the key changed since it was last written there (the
 * record is then on the operator's list of dirty keys), `stored` that keyed state holds an entry for it. A record
 * reused for another key keeps its `dirty` flag and its place on that list, so the list never holds a record twice
 * and the next write covers whichever key the record holds then. `registrations` are the times (ascending, with the
 * sequence number each was first registered under) at which Flink's operator would hold an event-time timer for
 * the key: its earliest queued element and its partial matches' timeouts. The key is due at the first; a key
 * whose partial matches cannot time out (no window) stays listed, not due.
 */
interface CepKey<IN> extends DueKey, ElementQueue<IN> {
  key: unknown;
  normalizedKey: NormalizedKey;
  nfaState: NFAState | undefined;
  dirty: boolean;
  stored: boolean;
  registeredTimes: number[];
  registeredSeqs: number[];
  registrations: number;
}

/** Records of forgotten keys kept for reuse, at most this many. */
const KEY_POOL_SIZE = 4096;

/** Emptied queues kept for reuse, at most this many, each of at most {@link POOLED_CAPACITY} slots. */
const QUEUE_POOL_SIZE = 4096;
const POOLED_CAPACITY = 64;

/**
 * Flink's `CepOperator`, keyed (non-keyed streams are keyed by a constant at parallelism 1).
 *
 * Event time: an element later than the current watermark is buffered in the key's element queue (one ValueState
 * holding a timestamp-sorted array, where Flink keeps a MapState keyed by timestamp). Where Flink registers an
 * event-time timer per key and buffered timestamp, and one at first-event + window per new partial match (Weir
 * also at previous-event + gap for PREVIOUS_AND_CURRENT windows), the operator keeps one record per key holding
 * something (`dueKeys`) with those registrations, and one operator-wide queue of keys by their first registration
 * (`DueKeyQueue`): a key costs one queue entry, not a timer object per element. At a watermark the due keys are
 * woken in the order their timers would fire; each feeds its buffered elements up to the watermark to the NFA in
 * timestamp order (ties: the comparator, then arrival), calling `advanceTime` before each timestamp, then advances
 * to the watermark so partial matches past `within` time out. Registrations mirror Flink's after the first one
 * too: only the earliest element registers (a later one is processed when that one's time comes, or earlier), and
 * a key whose partial matches all ended and that has nothing queued is forgotten with its registrations, where
 * Flink's timers of ended partial matches stay. Elements with timestamp <= watermark are late: side output
 * (`sideOutputLateData`) or dropped.
 *
 * Processing time: without a comparator each element is processed at once at the current processing time;
 * with one, elements are buffered under their arrival millisecond and sorted on a processing-time timer.
 *
 * State — the NFA state with the shared-buffer graph it reaches (one ValueState, flattened for snapshots by
 * `nfaStateSerializer`), the shared-buffer counters (ValueState) and the element queue (ValueState) — is keyed state,
 * so it is snapshotted and restored (and rescaled) with the job. In event time the queue and the NFA state of each
 * key live on the heap, in the key's record, and are written into keyed state only for the keys that changed, right
 * before a snapshot (`prepareKeyedStateSnapshot`): the record path neither reads nor writes keyed state for them,
 * which on a durable backend (LMDB) would serialize the NFA state at every change.
 */
export class CepOperator<IN, KEY, OUT>
  extends AbstractStreamOperator<OUT>
  implements OneInputStreamOperator<IN, OUT>, Triggerable<KEY, VoidNamespace>
{
  private nfa!: NFA<IN>;
  private computationStates!: InternalValueState<VoidNamespace, NFAState>;
  private elementQueueState!: InternalValueState<VoidNamespace, ElementQueue<IN>>;
  private readonly queuePool: ElementQueue<IN>[] = [];
  /**
   * Event time: every key holding queued elements or an NFA state, by normalised key (a key not listed holds
   * neither), and those due ordered by the time they must wake up at. They replace an event-time timer per key.
   */
  private readonly dueKeys = new Map<NormalizedKey, CepKey<IN>>();
  private readonly dueQueue = new DueKeyQueue<CepKey<IN>>();
  private readonly keyPool: CepKey<IN>[] = [];
  /** Event time: the records whose key changed since keyed state last received it (see {@link CepKey}). */
  private readonly dirtyKeys: CepKey<IN>[] = [];
  /** Numbers registrations in event time, as a timer service numbers timers: keys due at one time go in this order. */
  private nextSeq = 0;
  /** The key being woken, which timeouts registered while its events are processed belong to. */
  private wakingKey: CepKey<IN> | undefined = undefined;
  private backend!: KeyedStateBackend;
  /** An initial NFA state not yet stored for any key: keys that start nothing share it instead of allocating. */
  private spareInitialState: NFAState | undefined = undefined;
  private accessor!: SharedBufferAccessor<IN>;
  private sharedBuffer!: SharedBuffer<IN>;
  private timerService!: InternalTimerService<VoidNamespace>;
  private readonly fn: PatternProcessFunction<IN, OUT, any>;
  private readonly matchContext = new MatchContext(this);
  private collector!: CepCollector<OUT>;
  private readonly cepTimerService: CepTimerService = {
    currentProcessingTime: () => this.timerService.currentProcessingTime(),
  };
  private readonly handleTimeout: boolean;
  private readonly gapWindows: number[];
  /** Late elements dropped because no late-data side output was set (Flink's numLateRecordsDropped). */
  numLateRecordsDropped = 0;
  /** Logs the drops rate-limited; the record path only increments the count above. */
  private lateRecordLog!: LateRecordLog;

  constructor(
    private readonly compiled: CompiledPattern<IN>,
    fn: PatternProcessFunction<IN, OUT, any>,
    readonly isProcessingTime: boolean,
    private readonly comparator: EventComparator<IN> | undefined,
    private readonly lateDataOutputTag: OutputTag<IN> | undefined,
  ) {
    super();
    this.fn = instantiateFunction(fn);
    this.handleTimeout = isTimedOutPartialMatchHandler(this.fn);
    this.gapWindows = [
      ...new Set([...compiled.windowTimes.values()].filter((w) => w > 0 && w !== compiled.windowTime)),
    ];
  }

  override open(): void | Promise<void> {
    this.context.metricGroup.counter(
      'numLateRecordsDropped',
      new FieldCounter(() => this.numLateRecordsDropped),
    );
    this.lateRecordLog = new LateRecordLog(this.context, 'CEP operator');
    const backend = this.context.keyedStateBackend;
    // Stryker disable next-line ConditionalExpression: CEP.pattern keys every input, so only a hand-built graph gets here
    if (backend === undefined) {
      throw new IllegalStateError(
        `Operator '${this.context.operatorName}': CEP needs a keyed stream (CEP.pattern keys it)`,
      );
    }
    this.computationStates = backend.getOrCreateKeyedState(
      new ValueStateDescriptor<NFAState>(NFA_STATE_NAME, { serializer: nfaStateSerializer }),
      voidNamespaceSerializer,
    );
    this.computationStates.setCurrentNamespace(VoidNamespace);
    this.elementQueueState = backend.getOrCreateKeyedState(
      new ValueStateDescriptor<ElementQueue<IN>>(EVENT_QUEUE_STATE_NAME, {
        serializer: elementQueueSerializer as TypeSerializer<ElementQueue<IN>>,
      }),
      voidNamespaceSerializer,
    );
    this.elementQueueState.setCurrentNamespace(VoidNamespace);
    this.sharedBuffer = new SharedBuffer<IN>(backend);
    this.accessor = new SharedBufferAccessor<IN>(this.sharedBuffer);
    this.timerService = this.context.getInternalTimerService<KEY, VoidNamespace>(
      'watermark-callbacks',
      voidNamespaceSerializer,
      this,
    );
    this.nfa = new NFA(this.compiled, this.handleTimeout);
    this.collector = new CepCollector(this.output);
    this.backend = backend;
    if (!this.isProcessingTime) this.restoreDueKeys();
    const group = this.context.metricGroup;
    group.gauge('numPartialMatches', { getValue: () => this.liveCounts().partialMatches });
    group.gauge('numSharedBufferEvents', { getValue: () => this.liveCounts().events });
    group.gauge('numSharedBufferEntries', { getValue: () => this.liveCounts().entries });
    return openFunction(this.fn, this.context.runtimeContext);
  }

  processElement(value: IN, timestamp: number): void {
    if (this.isProcessingTime) {
      if (this.comparator === undefined) {
        // there can be no out-of-order elements in processing time
        const nfaState = this.getNFAState();
        const now = this.timerService.currentProcessingTime();
        this.advanceTime(nfaState, now);
        this.processEvent(nfaState, value, now);
        this.updateNFA(nfaState, undefined);
      } else {
        this.bufferEvent(value, this.timerService.currentProcessingTime());
      }
      return;
    }
    if (!hasTimestamp(timestamp)) {
      throw new IllegalStateError(
        `Operator '${this.context.operatorName}': a record has no timestamp, but the pattern stream runs in event time; ` +
          'assign timestamps and watermarks upstream or call inProcessingTime()',
      );
    }
    // In event time the watermark is trusted: an element at or before it is late (Flink's CepOperator check).
    if (timestamp > this.timerService.currentWatermark()) {
      this.bufferEventInEventTime(value, timestamp);
    } else if (this.lateDataOutputTag !== undefined) {
      this.output.collectSide(this.lateDataOutputTag, value, timestamp);
    } else if (++this.numLateRecordsDropped === 1) {
      this.lateRecordLog.first(timestamp, this.timerService.currentWatermark());
    }
  }

  /**
   * Event time registers no timers (see {@link processWatermark}); a timer restored from a snapshot taken before
   * that (one per key) wakes its key up as its turn would.
   */
  onEventTime(_timer: InternalTimer<KEY, VoidNamespace>): void {
    const backend = this.backend;
    const normalizedKey = backend.currentNormalizedKey();
    let due = this.dueKeys.get(normalizedKey);
    if (due === undefined) {
      const queue = this.elementQueueState.value();
      const nfaState = this.computationStates.value();
      due = this.newDueKey(backend.getCurrentKey(), normalizedKey, queue, nfaState);
      due.stored = queue !== undefined || nfaState !== undefined;
    } else {
      this.dueQueue.unschedule(due);
    }
    this.wake(due, this.timerService.currentWatermark());
  }

  onProcessingTime(_timer: InternalTimer<KEY, VoidNamespace>): void {
    const nfaState = this.getNFAState();
    const queue = this.elementQueueState.value();
    if (queue !== undefined) this.processQueue(nfaState, queue, Number.POSITIVE_INFINITY);
    this.advanceTime(nfaState, this.timerService.currentProcessingTime());
    this.updateNFA(nfaState, undefined);
  }

  /**
   * Event time: wakes every key due at or before the watermark, in the order Flink's timers at those times would
   * fire (by time, then by when the key registered that time), then fires timers and forwards the watermark.
   */
  override processWatermark(watermark: number): void {
    if (!this.isProcessingTime) {
      const backend = this.backend;
      let due: CepKey<IN> | undefined;
      while ((due = this.dueQueue.takeDue(watermark)) !== undefined) {
        backend.setCurrentNormalizedKey(due.normalizedKey, due.key);
        this.wake(due, watermark);
      }
    }
    super.processWatermark(watermark);
    if (this.numLateRecordsDropped !== this.lateRecordLog.logged)
      this.lateRecordLog.report(this.numLateRecordsDropped, false);
  }

  override close(): void | Promise<void> {
    this.lateRecordLog.report(this.numLateRecordsDropped, true);
    return closeFunction(this.fn);
  }

  /**
   * Wakes the current key (`due`, out of the queue) at the watermark: feeds its queued elements up to it to the NFA,
   * advances the NFA to it, then keeps the NFA state (or drops it when no partial match is left) and queues the key
   * again at its next wake-up time, or forgets it.
   */
  private wake(due: CepKey<IN>, watermark: number): void {
    // the key's timers up to the watermark fire now (a key fires once: its first one processes everything due)
    this.dropRegistrations(due, watermark);
    const nfaState = due.nfaState ?? (this.spareInitialState ??= this.nfa.createInitialNFAState());
    this.wakingKey = due;
    if (due.size > 0 && due.timestamps[0]! <= watermark) {
      if (!due.dirty) this.markDirty(due);
      this.processQueue(nfaState, due, watermark);
    }
    this.advanceTime(nfaState, watermark);
    this.wakingKey = undefined;
    due.nfaState = this.keepNFA(due, nfaState);
    this.registerNext(due, nfaState);
    // timeouts registered at times the watermark already passed would fire with nothing left to do
    this.dropRegistrations(due, watermark);
    this.scheduleWake(due);
  }

  /**
   * Registers the key at its earliest queued element (Flink's operator moves its timer there) and at its next
   * timeout (already registered when its partial match started, unless the key was restored).
   */
  private registerNext(due: CepKey<IN>, nfaState: NFAState): void {
    if (due.size > 0) this.register(due, due.timestamps[0]!);
    const timeout = this.nfa.nextTimeout(nfaState);
    if (timeout !== Number.POSITIVE_INFINITY) this.register(due, timeout);
  }

  /**
   * Queues `due` at its first registration; forgets it, registrations and all, when it holds nothing (its record is
   * reused: stale entries in the queue never match a new stamp).
   */
  private scheduleWake(due: CepKey<IN>): void {
    if (due.size === 0 && due.nfaState === undefined) {
      // what an earlier snapshot wrote for the key goes now (the key is current: it was just woken)
      if (due.stored) {
        this.elementQueueState.clear();
        this.computationStates.clear();
        due.stored = false;
      }
      this.dueQueue.unschedule(due);
      this.dueKeys.delete(due.normalizedKey);
      due.key = undefined;
      // Stryker disable next-line ConditionalExpression,EqualityOperator: the pool only saves allocations; a record it hands out is reset before use
      if (this.keyPool.length < KEY_POOL_SIZE) this.keyPool.push(due);
    } else if (due.registrations > 0) {
      this.dueQueue.schedule(due, due.registeredTimes[0]!, due.registeredSeqs[0]!);
    } else {
      this.dueQueue.unschedule(due);
    }
  }

  /**
   * Registers the key at `time`, as `registerEventTimeTimer` would: a registration at a time the key already has
   * is the same one, and keeps its sequence number. Returns true when `time` is now the key's first. O(registrations
   * of the key), a few.
   */
  private register(due: CepKey<IN>, time: number): boolean {
    const times = due.registeredTimes;
    const seqs = due.registeredSeqs;
    const n = due.registrations;
    let i = 0;
    while (i < n && times[i]! < time) i++;
    if (i < n && times[i] === time) return false;
    for (let k = n; k > i; k--) {
      times[k] = times[k - 1]!;
      seqs[k] = seqs[k - 1]!;
    }
    times[i] = time;
    seqs[i] = this.nextSeq++;
    due.registrations = n + 1;
    return i === 0;
  }

  /** Forgets the key's registrations at or before `time`. */
  private dropRegistrations(due: CepKey<IN>, time: number): void {
    const times = due.registeredTimes;
    const seqs = due.registeredSeqs;
    const n = due.registrations;
    let d = 0;
    while (d < n && times[d]! <= time) d++;
    if (d === 0) return;
    for (let k = d; k < n; k++) {
      times[k - d] = times[k]!;
      seqs[k - d] = seqs[k]!;
    }
    due.registrations = n - d;
  }

  private newDueKey(
    key: unknown,
    normalizedKey: NormalizedKey,
    queue: ElementQueue<IN> | undefined,
    nfaState: NFAState | undefined,
  ): CepKey<IN> {
    let due = this.keyPool.pop();
    // Stryker disable next-line ConditionalExpression: a fresh record instead of a pooled one only costs an allocation
    if (due === undefined) {
      due = {
        wakeAt: Number.POSITIVE_INFINITY,
        stamp: -1,
        size: 0,
        timestamps: [],
        elements: [],
        key,
        normalizedKey,
        nfaState,
        dirty: false,
        stored: false,
        registeredTimes: [],
        registeredSeqs: [],
        registrations: 0,
      };
    } else {
      // a pooled record was forgotten empty: its queue holds nothing
      due.key = key;
      due.normalizedKey = normalizedKey;
      due.nfaState = nfaState;
      due.stored = false;
      due.registrations = 0;
    }
    if (queue !== undefined) {
      for (let i = 0; i < queue.size; i++) {
        due.timestamps[i] = queue.timestamps[i]!;
        due.elements[i] = queue.elements[i];
      }
      due.size = queue.size;
    }
    this.dueKeys.set(normalizedKey, due);
    return due;
  }

  /**
   * After a restore, queues every key the keyed state holds a queue or a partial match for (keys are assigned by key
   * group, so this works at any parallelism). Timers are not needed: each key's wake-up time follows from its state.
   */
  private restoreDueKeys(): void {
    const backend = this.backend;
    let visited = false;
    for (const key of [...backend.getKeys(NFA_STATE_NAME), ...backend.getKeys(EVENT_QUEUE_STATE_NAME)]) {
      backend.setCurrentKey(key);
      visited = true;
      const normalizedKey = backend.currentNormalizedKey();
      if (this.dueKeys.has(normalizedKey)) continue;
      let nfaState = this.computationStates.value();
      // a snapshot of an earlier version keeps NFA states whose partial matches all ended: none is kept now
      if (nfaState !== undefined && this.nfa.isIdle(nfaState)) {
        this.computationStates.clear();
        nfaState = undefined;
      }
      const queue = this.elementQueueState.value();
      if (nfaState === undefined && queue === undefined) continue;
      const due = this.newDueKey(key, normalizedKey, queue, nfaState);
      due.stored = true;
      if (nfaState !== undefined) this.registerNext(due, nfaState);
      else this.register(due, due.timestamps[0]!);
      this.scheduleWake(due);
    }
    if (visited) backend.clearCurrentKey();
  }

  /**
   * Feeds the queued elements with timestamp <= `upTo` to the NFA, `advanceTime` before each timestamp. An emptied
   * queue leaves the state before any element is processed. Returns true when the queue was emptied.
   */
  private processQueue(nfaState: NFAState, queue: ElementQueue<IN>, upTo: number): boolean {
    const timestamps = queue.timestamps;
    const elements = queue.elements;
    const size = queue.size;
    let n = 1;
    while (n < size && timestamps[n]! <= upTo) n++;
    // (event time keeps the queue on the heap: see CepKey)
    if (n === size && this.isProcessingTime) this.elementQueueState.clear();
    // Nothing but this loop touches the key's queue until it ends (no element can arrive meanwhile), so the
    // processed slots are dropped after it.
    const comparator = this.comparator;
    let i = 0;
    while (i < n) {
      const ts = timestamps[i]!;
      let end = i + 1;
      while (end < n && timestamps[end] === ts) end++;
      this.advanceTime(nfaState, ts);
      // Stryker disable next-line EqualityOperator,ArithmeticOperator: sorting a single element changes nothing
      if (comparator !== undefined && end - i > 1) {
        // Array.prototype.sort is stable: ties keep arrival order
        for (const e of (elements.slice(i, end) as IN[]).sort(comparator)) this.processEvent(nfaState, e, ts);
      } else {
        for (let k = i; k < end; k++) this.processEvent(nfaState, elements[k]!, ts);
      }
      i = end;
    }
    // shift the rest down, clear the freed element slots
    // Stryker disable next-line EqualityOperator: one more copy only writes a spare slot past the new size
    for (let k = n; k < size; k++) {
      timestamps[k - n] = timestamps[k]!;
      elements[k - n] = elements[k];
    }
    // Stryker disable next-line ArithmeticOperator,ConditionalExpression,EqualityOperator: clearing spare slots only lets the collector take the elements; they are never read again
    for (let k = size - n; k < size; k++) elements[k] = undefined;
    queue.size = size - n;
    // (the heap backend holds the queue itself; written back for backends that copy)
    if (n < size) {
      if (this.isProcessingTime) this.elementQueueState.update(queue);
      return false;
    }
    // (in event time the queue is the key's record, which is pooled when the key is forgotten)
    // Stryker disable next-line ConditionalExpression,LogicalOperator,EqualityOperator,BlockStatement: the pool only saves allocations; any queue it hands out is reset before use
    if (
      this.isProcessingTime &&
      this.queuePool.length < QUEUE_POOL_SIZE &&
      timestamps.length <= POOLED_CAPACITY
    ) {
      this.queuePool.push(queue);
    }
    return true;
  }

  /**
   * Event time: queues an element in the key's queue (its record), and moves the key's wake-up time earlier when the
   * element is due before it.
   */
  private bufferEventInEventTime(event: IN, timestamp: number): void {
    const backend = this.backend;
    const normalizedKey = backend.currentNormalizedKey();
    let due = this.dueKeys.get(normalizedKey);
    // a key not listed holds no state: nothing to read
    if (due === undefined) due = this.newDueKey(backend.getCurrentKey(), normalizedKey, undefined, undefined);
    let at = 0;
    if (due.size === 0) {
      due.timestamps[0] = timestamp;
      due.elements[0] = event;
      due.size = 1;
    } else {
      at = this.insertIntoQueue(due, event, timestamp);
    }
    if (!due.dirty) this.markDirty(due);
    // a new earliest element registers (Flink: a timer per buffered timestamp; the later ones change nothing here)
    if (at === 0 && this.register(due, timestamp))
      this.dueQueue.schedule(due, timestamp, due.registeredSeqs[0]!);
  }

  /** A queue of one element, from the pool when it has one. */
  private newQueue(event: IN, timestamp: number): ElementQueue<IN> {
    const queue = this.queuePool.pop();
    // Stryker disable next-line ConditionalExpression: a fresh queue instead of a pooled one only costs an allocation
    if (queue === undefined) return { size: 1, timestamps: [timestamp], elements: [event] };
    queue.size = 1;
    queue.timestamps[0] = timestamp;
    queue.elements[0] = event;
    return queue;
  }

  /** Inserts after the last element with a timestamp <= this one (usually at the end); returns the slot. */
  private insertIntoQueue(queue: ElementQueue<IN>, event: IN, timestamp: number): number {
    const timestamps = queue.timestamps;
    const elements = queue.elements;
    const size = queue.size;
    const last = timestamps[size - 1]!;
    let at = size;
    // Stryker disable next-line EqualityOperator: the search below also places an equal timestamp after the equal ones
    if (timestamp < last) {
      let lo = 0;
      let hi = size - 1; // timestamps[hi] > timestamp
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (timestamps[mid]! <= timestamp) lo = mid + 1;
        else hi = mid;
      }
      at = lo;
    }
    // Stryker disable next-line ConditionalExpression,EqualityOperator,BlockStatement: writing at index length grows a JavaScript array too; pushing first only keeps the growth in one place
    if (size === timestamps.length) {
      timestamps.push(0);
      elements.push(undefined);
    }
    // Stryker disable next-line EqualityOperator: the extra copy into slot `at` is overwritten right after
    for (let k = size; k > at; k--) {
      timestamps[k] = timestamps[k - 1]!;
      elements[k] = elements[k - 1];
    }
    timestamps[at] = timestamp;
    elements[at] = event;
    queue.size = size + 1;
    return at;
  }

  /**
   * Processing time with a comparator: queues an element under its arrival millisecond, with a timer after each new
   * millisecond, as Flink.
   */
  private bufferEvent(event: IN, timestamp: number): void {
    let queue = this.elementQueueState.value();
    if (queue === undefined) {
      queue = this.newQueue(event, timestamp);
      this.elementQueueState.update(queue);
      this.registerTimer(timestamp);
      return;
    }
    const at = this.insertIntoQueue(queue, event, timestamp);
    this.elementQueueState.update(queue);
    if (at === 0 || queue.timestamps[at - 1] !== timestamp) this.registerTimer(timestamp);
  }

  /** Processing time only: a timer just after `timestamp` (Flink's `registerTimer`). */
  private registerTimer(timestamp: number): void {
    this.timerService.registerProcessingTimeTimer(VoidNamespace, timestamp + 1);
  }

  /**
   * @internal For tests and tools: the wake-up time of each key this subtask holds something for in event time,
   * ascending (one per due key: its first queued element or its next timeout, whichever is earlier).
   */
  wakeUpTimes(): number[] {
    return [...this.dueKeys.values()]
      .map((d) => d.wakeAt)
      .filter((t) => t !== Number.POSITIVE_INFINITY)
      .sort((a, b) => a - b);
  }

  /**
   * Partial matches (computation states that took an event) and shared-buffer events and entries over every key
   * of this subtask. Counted when a gauge is read (about once a second; O(keys)), between record calls, so the
   * record path pays nothing; the current key is put back afterwards.
   */
  private liveCounts(): { partialMatches: number; events: number; entries: number } {
    this.prepareKeyedStateSnapshot();
    const backend = this.context.keyedStateBackend!;
    const counts = { partialMatches: 0, events: 0, entries: 0 };
    const keyless = this.currentKeyOrNone(backend);
    try {
      for (const key of [...backend.getKeys(NFA_STATE_NAME)]) {
        backend.setCurrentKey(key);
        for (const s of this.computationStates.value()?.partialMatches.items ?? []) {
          if (s.startEventId !== null) counts.partialMatches++;
        }
        counts.events += this.sharedBuffer.numEvents();
        counts.entries += this.sharedBuffer.numEntries();
      }
    } finally {
      if (keyless.none) backend.clearCurrentKey();
      else backend.setCurrentKey(keyless.key);
    }
    return counts;
  }

  /**
   * This subtask's live partial matches per key, with the events each took so far and the elements each key has
   * queued (see `partial-match-snapshot.ts`). Taken on request only, between record calls, like the gauges above:
   * O(keys) to find the keys holding something, then the events of the keys shown; the record path pays nothing.
   */
  partialMatchSnapshot(query: PartialMatchQuery): SubtaskPartialMatches {
    this.prepareKeyedStateSnapshot();
    const backend = this.context.keyedStateBackend!;
    const keyless = this.currentKeyOrNone(backend);
    const found: KeyMatchState[] = [];
    const seen = new Set<unknown>();
    try {
      // A key holds an NFA state, a queue, or both: each is visited once, by its normalised key.
      for (const key of [...backend.getKeys(NFA_STATE_NAME), ...backend.getKeys(EVENT_QUEUE_STATE_NAME)]) {
        backend.setCurrentKey(key);
        const normalized = backend.currentNormalizedKey();
        if (seen.has(normalized)) continue;
        seen.add(normalized);
        const partialMatches = (this.computationStates.value()?.partialMatches.items ?? []).filter(
          (s) => s.startEventId !== null,
        );
        const queuedEvents = this.elementQueueState.value()?.size ?? 0;
        if (partialMatches.length > 0 || queuedEvents > 0) found.push({ key, partialMatches, queuedEvents });
      }
    } finally {
      if (keyless.none) backend.clearCurrentKey();
      else backend.setCurrentKey(keyless.key);
    }
    return snapshotPartialMatches(this.context.subtaskIndex, found, this.accessor, query);
  }

  /** The key to put back after visiting every key: none when cleared, or never set (no record or timer yet). */
  private currentKeyOrNone(backend: KeyedStateBackend): { none: boolean; key: unknown } {
    try {
      backend.currentNormalizedKey();
      const key = backend.getCurrentKey();
      return { none: key === undefined, key };
    } catch {
      return { none: true, key: undefined };
    }
  }

  /**
   * Event time: what `updateNFA` does for processing time, on the key's record instead of keyed state. Returns the
   * NFA state the key keeps: undefined when no partial match is left, `due.nfaState` when nothing changed.
   */
  private keepNFA(due: CepKey<IN>, nfaState: NFAState): NFAState | undefined {
    if (!nfaState.stateChanged) return due.nfaState;
    nfaState.stateChanged = false;
    nfaState.newStartPartialMatch = false;
    if (!due.dirty) this.markDirty(due);
    // No partial match left (so no shared-buffer event either): the key keeps no NFA state (see updateNFA).
    if (this.nfa.isIdle(nfaState)) return undefined;
    // now the key's own; an unchanged initial state was left as it was and serves the next key
    // Stryker disable next-line ConditionalExpression: a new initial state instead of the spare one only costs an allocation
    if (nfaState === this.spareInitialState) this.spareInitialState = undefined;
    return nfaState;
  }

  private markDirty(due: CepKey<IN>): void {
    due.dirty = true;
    this.dirtyKeys.push(due);
  }

  /**
   * Event time: writes every key changed since the last call into keyed state (its queue and NFA state, or clears
   * them when the key holds neither), so a snapshot of keyed state taken next holds every queued element and partial
   * match. O(keys changed since the last call); the record path writes no keyed state at all. The current key is
   * put back afterwards.
   */
  override prepareKeyedStateSnapshot(): void {
    const dirty = this.dirtyKeys;
    if (dirty.length === 0) return;
    const backend = this.backend;
    const keyless = this.currentKeyOrNone(backend);
    try {
      for (let i = 0; i < dirty.length; i++) {
        const due = dirty[i]!;
        // a record forgotten since (its entries were cleared then) or already written under an earlier place
        if (!due.dirty) continue;
        due.dirty = false;
        if (due.key === undefined) continue;
        backend.setCurrentNormalizedKey(due.normalizedKey, due.key);
        this.elementQueueState.update(
          due.size === 0
            ? undefined
            : {
                size: due.size,
                timestamps: due.timestamps.slice(0, due.size),
                elements: due.elements.slice(0, due.size),
              },
        );
        this.computationStates.update(due.nfaState);
        due.stored = true;
      }
    } finally {
      dirty.length = 0;
      if (keyless.none) backend.clearCurrentKey();
      else backend.setCurrentKey(keyless.key);
    }
  }

  private getNFAState(): NFAState {
    return this.computationStates.value() ?? (this.spareInitialState ??= this.nfa.createInitialNFAState());
  }

  /**
   * Writes a changed NFA state back, or drops it when no partial match is left. Returns the key's stored state
   * afterwards: `stored` (what it was) when nothing changed.
   */
  private updateNFA(nfaState: NFAState, stored: NFAState | undefined): NFAState | undefined {
    if (!nfaState.stateChanged) return stored;
    // Stryker disable next-line BooleanLiteral: processEvent resets both flags before each event; a flag left set costs one more state write
    nfaState.stateChanged = false;
    // Stryker disable next-line BooleanLiteral: as above
    nfaState.newStartPartialMatch = false;
    if (this.nfa.isIdle(nfaState)) {
      // No partial match left (so no shared-buffer event either): the key keeps no NFA state; the next event
      // starts from an initial state as if the key were new (Flink keeps the state until the key's state expires).
      this.computationStates.clear();
      return undefined;
    }
    this.computationStates.update(nfaState);
    // now the key's own; an unchanged initial state was left as it was and serves the next key
    // Stryker disable next-line ConditionalExpression: a new initial state instead of the spare one only costs an allocation
    if (nfaState === this.spareInitialState) this.spareInitialState = undefined;
    return nfaState;
  }

  /**
   * Feeds one event to the NFA. In processing time, timers follow what this event did (Flink reads the flags
   * accumulated since the state was last written, so after one change every later event of a batch registers
   * again; those timers fire only where the key's own timers fire anyway, or find nothing to time out): a new
   * partial match times out at its first event + window, and a partial match that took the event at previous +
   * gap. Event time registers no timers: the same registrations go to the key's record (`registerTimeouts`).
   */
  private processEvent(nfaState: NFAState, event: IN, timestamp: number): void {
    const changedBefore = nfaState.stateChanged;
    const startedBefore = nfaState.newStartPartialMatch;
    nfaState.stateChanged = false;
    nfaState.newStartPartialMatch = false;
    const matches = this.nfa.process(
      this.accessor,
      nfaState,
      event,
      timestamp,
      this.compiled.afterMatchSkipStrategy,
      this.cepTimerService,
    );
    if (nfaState.stateChanged) {
      if (this.isProcessingTime) this.registerTimeoutTimers(nfaState, timestamp);
      else this.registerTimeouts(this.wakingKey!, nfaState, timestamp);
    } else if (changedBefore) {
      nfaState.stateChanged = true;
    }
    // Stryker disable next-line ConditionalExpression,BooleanLiteral: the flag is only read right after nfa.process above, and reset before the next event
    if (startedBefore) nfaState.newStartPartialMatch = true;
    this.processMatchedSequences(matches, timestamp);
  }

  private registerTimeoutTimers(nfaState: NFAState, timestamp: number): void {
    if (this.nfa.windowTime > 0 && nfaState.newStartPartialMatch)
      this.registerTimer(timestamp + this.nfa.windowTime);
    // Weir: also wake up when a previous-to-current gap can expire, so those partial matches time out without
    // waiting for the key's next element (Flink registers only the first-to-last window).
    for (const gap of this.gapWindows) this.registerTimer(timestamp + gap);
  }

  /** Event time: the registrations Flink's timers would make (see registerTimeoutTimers), on the key's record. */
  private registerTimeouts(due: CepKey<IN>, nfaState: NFAState, timestamp: number): void {
    if (this.nfa.windowTime > 0 && nfaState.newStartPartialMatch)
      this.register(due, timestamp + this.nfa.windowTime);
    for (const gap of this.gapWindows) this.register(due, timestamp + gap);
  }

  private advanceTime(nfaState: NFAState, timestamp: number): void {
    const { matches, timedOut } = this.nfa.advanceTime(
      this.accessor,
      nfaState,
      timestamp,
      this.compiled.afterMatchSkipStrategy,
    );
    this.processMatchedSequences(matches, timestamp);
    this.processTimedOutSequences(timedOut);
  }

  private processMatchedSequences(matches: readonly Match<IN>[], timestamp: number): void {
    // an indexed loop: no iterator per call, and nearly every call gets the shared empty array
    for (let i = 0; i < matches.length; i++) {
      this.setTimestamp(timestamp);
      rejectPromiseResult(
        this.fn.processMatch(matches[i]!, this.matchContext, this.collector),
        'processMatch()',
      );
    }
  }

  private processTimedOutSequences(timedOut: readonly TimedOutMatch<IN>[]): void {
    // Stryker disable next-line ConditionalExpression: without a handler the NFA is built not to collect timed-out matches, so there are none to hand out
    if (!this.handleTimeout) return;
    const handler = this.fn as unknown as {
      processTimedOutMatch(m: unknown, ctx: PatternProcessContext): void;
    };
    for (let i = 0; i < timedOut.length; i++) {
      const t = timedOut[i]!;
      this.setTimestamp(t.timestamp);
      rejectPromiseResult(handler.processTimedOutMatch(t.match, this.matchContext), 'processTimedOutMatch()');
    }
  }

  private setTimestamp(timestamp: number): void {
    this.collector.timestamp = this.isProcessingTime ? NO_TIMESTAMP : timestamp;
    this.matchContext.currentTimestamp = timestamp;
  }

  /** @internal For the context: side outputs. */
  emitSide<X>(tag: OutputTag<X>, value: X): void {
    this.output.collectSide(
      tag,
      value,
      this.isProcessingTime ? NO_TIMESTAMP : this.matchContext.currentTimestamp,
    );
  }

  /** @internal */
  currentProcessingTime(): number {
    return this.timerService.currentProcessingTime();
  }
}

/** One per operator (Flink's `ContextFunctionImpl`): the timestamp is set before each match is handed out. */
class MatchContext implements PatternProcessContext {
  currentTimestamp = 0;
  constructor(private readonly operator: CepOperator<any, any, any>) {}

  timestamp(): number {
    return this.currentTimestamp;
  }

  currentProcessingTime(): number {
    return this.operator.currentProcessingTime();
  }

  output<X>(tag: OutputTag<X>, value: X): void {
    this.operator.emitSide(tag, value);
  }
}

/** Emits with the match's timestamp (event time) or none (processing time). */
class CepCollector<T> implements Collector<T> {
  timestamp = NO_TIMESTAMP;
  constructor(private readonly output: { collect(value: T, timestamp: number): void }) {}
  collect(value: T): void {
    this.output.collect(value, this.timestamp);
  }
}
