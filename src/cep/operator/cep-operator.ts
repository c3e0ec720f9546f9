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
import {
  EVENT_INERT,
  EVENT_MAY_START,
  NFA,
  type CepTimerService,
  type Match,
  type TimedOutMatch,
} from '../nfa/nfa.ts';
import type { NFAState } from '../nfa/nfa-state.ts';
import { nfaStateSerializer } from '../nfa/nfa-state-serializer.ts';
import { SharedBuffer } from '../nfa/shared-buffer/shared-buffer.ts';
import type { KeyedStateBackend } from '../../state/keyed-state-backend.ts';
import { SharedBufferAccessor } from '../nfa/shared-buffer/shared-buffer-accessor.ts';
import { LateRecordLog } from '../../operators/late-record-log.ts';
import { DueBuffer, entryKind, MARKED_ELEMENT, TIMEOUT, type DueBucket } from './due-buffer.ts';
import { NumberKeyFilter } from './number-key-filter.ts';
import { denormalizeKey, type NormalizedKey } from '../../state/key-hash.ts';
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
 * event time the operator buffers elements in its due buffer and writes a key's there only before a snapshot); never empty while kept: an emptied queue is
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
 * A key with partial matches in event time: its NFA state, on the heap, and the times at which Flink's operator would
 * hold an event-time timer for it for those partial matches (their timeouts). Keys without partial matches have no
 * record: their buffered elements wait in the operator-wide {@link DueBuffer}, which holds nothing per key. The NFA
 * state reaches keyed state only before a snapshot ({@link CepOperator.prepareKeyedStateSnapshot}): `dirty` says it
 * changed since it was last written there (the record is then on the operator's list of dirty records), `stored` that
 * keyed state holds an entry for it. A record reused for another key keeps its `dirty` flag and its place on that list,
 * so the list never holds a record twice and the next write covers whichever key the record holds then.
 */
interface CepRecord {
  /** The key, or undefined once the record was forgotten (its entries in the due buffer are then stale). */
  key: unknown;
  normalizedKey: NormalizedKey;
  nfaState: NFAState | undefined;
  dirty: boolean;
  stored: boolean;
  /**
   * (time, sequence number) pairs, ascending by time: the timeouts registered, each with an entry in the due buffer
   * under the same sequence number (an entry whose pair is gone is stale).
   */
  registrations: readonly number[];
  /** The watermark round that last gave the key a group of its round (see {@link CepOperator.runRound}), and which. */
  round: number;
  group: number;
}

/** The registrations of a record that has none (shared: a record's array is replaced, never changed). */
const NO_REGISTRATIONS: readonly number[] = [];

/** Records of forgotten keys kept for reuse, at most this many. */
const RECORD_POOL_SIZE = 256;
/** Scratch arrays of a watermark round longer than this are dropped after it rather than kept for the next. */
const ROUND_SCRATCH_KEPT = 4096;
/** Up to this many starters in a round are found by a scan of their keys, more through a Map. */
const STARTERS_SCANNED = 8;

/** Emptied queues kept for reuse, at most this many, each of at most {@link POOLED_CAPACITY} slots. */
const QUEUE_POOL_SIZE = 4096;
const POOLED_CAPACITY = 64;

/**
 * Flink's `CepOperator`, keyed (non-keyed streams are keyed by a constant at parallelism 1).
 *
 * Event time: an element later than the current watermark is buffered until the watermark passes it. Where Flink
 * keeps a MapState per key (timestamp → elements) with an event-time timer per key and buffered timestamp, and
 * registers one at first-event + window per new partial match (Weir also at previous-event + gap for
 * PREVIOUS_AND_CURRENT windows), the operator keeps one operator-wide buffer by time (`DueBuffer`) holding each
 * buffered element, with its key and a sequence number, and each timeout registration; and a record per key only for
 * the keys with partial matches (`records`: their NFA state and timeouts). A key with no partial match holds no
 * state entry, no timer and no record: only its elements waiting for the watermark, in the buffer. At a watermark
 * the keys due are woken in the order Flink's timers would fire (by time, then by the order the elements and
 * timeouts were registered in); each feeds all its buffered elements up to the watermark to the NFA in timestamp
 * order (ties: the comparator, then arrival), calling `advanceTime` before each timestamp, then advances to the
 * watermark so partial matches past `within` time out. A key whose partial matches all ended is forgotten with its
 * registrations, where Flink's timers of ended partial matches stay. Elements with timestamp <= watermark are late:
 * side output (`sideOutputLateData`) or dropped.
 *
 * Processing time: without a comparator each element is processed at once at the current processing time;
 * with one, elements are buffered under their arrival millisecond and sorted on a processing-time timer.
 *
 * State — the NFA state with the shared-buffer graph it reaches (one ValueState, flattened for snapshots by
 * `nfaStateSerializer`), the shared-buffer counters (ValueState) and the element queue (ValueState) — is keyed state,
 * so it is snapshotted and restored (and rescaled) with the job. In event time the buffered elements and the NFA
 * states live on the heap and are written into keyed state right before a snapshot (`prepareKeyedStateSnapshot`: each
 * key's buffered elements as its queue, and the NFA states that changed): the record path neither reads nor writes
 * keyed state for them, which on a durable backend (LMDB) would serialize the NFA state at every change.
 */
export class CepOperator<IN, KEY, OUT>
  extends AbstractStreamOperator<OUT>
  implements OneInputStreamOperator<IN, OUT>, Triggerable<KEY, VoidNamespace>
{
  private nfa!: NFA<IN>;
  /** Event time: elements the NFA calls inert are dropped on arrival instead of buffered (see processElement). */
  private dropInert = false;
  private computationStates!: InternalValueState<VoidNamespace, NFAState>;
  private elementQueueState!: InternalValueState<VoidNamespace, ElementQueue<IN>>;
  private readonly queuePool: ElementQueue<IN>[] = [];
  /** Event time: the keys with partial matches, by normalised key (a key not listed has none). */
  private readonly records = new Map<NormalizedKey, CepRecord>();
  /**
   * The number keys of `records`, counted by slot: the watermark round looks up an element's key among the records
   * only when the filter says it may be there (most elements' keys have no partial match, at many keys nearly all).
   */
  private readonly recordKeys = new NumberKeyFilter();
  /** Event time: buffered elements and timeout registrations by time (see {@link DueBuffer}). */
  private readonly due = new DueBuffer();
  private readonly recordPool: CepRecord[] = [];
  /** Event time: the records whose NFA state changed since keyed state last received it (see {@link CepRecord}). */
  // Stryker disable next-line ArrayDeclaration: an entry that is no record has no dirty flag, and is skipped
  private readonly dirtyRecords: CepRecord[] = [];
  /** The dirty-record list is compacted when it reaches this length (forgotten records leave it then). */
  private dirtyLimit = 1024;
  /**
   * Event time: the keys whose queue keyed state holds (written before a snapshot, or restored), by normalised key;
   * a key's entry is cleared when it is woken, and rewritten before the next snapshot if it still buffers elements.
   */
  private storedQueues = new Set<NormalizedKey>();
  /** Numbers timeout registrations in event time: an entry in the due buffer names the registration it stands for. */
  private nextSeq = 0;
  /** Event time: the watermark of the current or last watermark round. */
  private roundWatermark = Number.NEGATIVE_INFINITY;
  /** Numbers the watermark rounds: a record's `round` says whether its `group` is this round's. */
  private roundNumber = 0;
  // Scratch of one watermark round: its buckets; the keys it wakes (groups, in waking order), each with its key, its
  // record (if it has one), the time from which its elements are fed, and its elements, linked; the keys with no
  // record it may wake (starters: keys with an element that may start something, or a queue to clear), each with its
  // group once it has one. Every slot of these arrays is written before it is read.
  // Stryker disable ArrayDeclaration: see above
  private readonly roundBuckets: DueBucket[] = [];
  private groupKeys: NormalizedKey[] = [];
  private groupRecords: (CepRecord | undefined)[] = [];
  private groupFrom: number[] = [];
  private groupHeads: number[] = [];
  private groupTails: number[] = [];
  private roundElements: unknown[] = [];
  private roundTimestamps: number[] = [];
  private roundNext: number[] = [];
  private starterKeys: NormalizedKey[] = [];
  private starterFrom: number[] = [];
  private starterGroups: number[] = [];
  // Stryker restore ArrayDeclaration
  private starterCount = 0;
  /** The starters by key, index into the arrays above, once there are more than {@link STARTERS_SCANNED}. */
  private readonly starterIndex = new Map<NormalizedKey, number>();
  /** The key being woken, and its record once it has one: timeouts registered meanwhile belong to it. */
  private wakingKey: unknown = undefined;
  private wakingNormalizedKey: NormalizedKey = 0;
  private wakingRecord: CepRecord | undefined = undefined;
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
    this.dropInert = this.nfa.mayDropInertEvents;
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
        this.updateNFA(nfaState);
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
      const reach = this.nfa.eventReach(value, timestamp);
      // an element no partial match would take or be changed by never reaches the NFA (see NFA.isInert)
      if (reach === EVENT_INERT && this.dropInert) return;
      this.bufferEventInEventTime(value, timestamp, reach === EVENT_MAY_START);
    } else if (this.lateDataOutputTag !== undefined) {
      this.output.collectSide(this.lateDataOutputTag, value, timestamp);
    } else if (++this.numLateRecordsDropped === 1) {
      this.lateRecordLog.first(timestamp, this.timerService.currentWatermark());
    }
  }

  /**
   * Event time registers no timers (see {@link processWatermark}). A timer restored from a snapshot taken before
   * that (one per key, at its earliest queued element or a timeout) fires after the watermark's round and finds its
   * work done: the restored queue is in the due buffer, and each restored partial match's next timeout registered.
   */
  onEventTime(_timer: InternalTimer<KEY, VoidNamespace>): void {}

  onProcessingTime(_timer: InternalTimer<KEY, VoidNamespace>): void {
    const nfaState = this.getNFAState();
    const queue = this.elementQueueState.value();
    // (a queue is kept only with a comparator)
    if (queue !== undefined) this.processQueue(nfaState, queue, this.comparator!);
    this.advanceTime(nfaState, this.timerService.currentProcessingTime());
    this.updateNFA(nfaState);
  }

  /**
   * Event time: wakes every key due at or before the watermark, in the order Flink's timers at those times would
   * fire (by time, then by when the element or timeout was registered), then fires timers and forwards the watermark.
   */
  override processWatermark(watermark: number): void {
    // (in processing time the due buffer stays empty: the round finds nothing)
    this.roundWatermark = watermark;
    this.runRound(watermark);
    super.processWatermark(watermark);
    this.lateRecordLog.report(this.numLateRecordsDropped, false);
  }

  override close(): void | Promise<void> {
    this.lateRecordLog.report(this.numLateRecordsDropped, true);
    return closeFunction(this.fn);
  }

  /**
   * One watermark round: takes the buckets due at or before the watermark out of the due buffer, gives each key to wake
   * a group holding its elements to feed (in timestamp order, then arrival), in the order of the key's first entry,
   * and wakes the groups in that order: Flink's timers at those times would fire in it (by time, then registration).
   * A key is woken when it has a record (partial matches), or else when one of its elements of the round may start
   * something (a starter, see NFA.startsNothing) or a snapshot wrote a queue for it (which waking clears); a key with
   * no record is fed its elements from the first timestamp with a starter on (a timestamp whole, as the comparator may
   * put any of its elements first): fed to its initial NFA state, those before it would leave it as it is, with
   * nothing to time out. Every other element is dropped with one lookup of its key's record.
   *
   * The groups are found before any key is woken: waking a key changes only its own record and registrations (a
   * record forgotten and reused for another key in the round drops its registrations, and a new one registers only
   * after the watermark), so what decides the groups holds through the round. Timeouts registered meanwhile are later
   * than the watermark (earlier ones would fire with nothing left to do), so the round's buckets stay as taken.
   */
  private runRound(watermark: number): void {
    const buckets = this.roundBuckets;
    this.due.takeUpTo(watermark, buckets);
    const round = ++this.roundNumber;
    this.findStarters(buckets);
    const records = this.records;
    const recordKeys = this.recordKeys;
    let elementCount = 0;
    let groupCount = 0;
    for (let b = 0; b < buckets.length; b++) {
      const bucket = buckets[b]!;
      const entries = bucket.entries;
      const ts = bucket.timestamp;
      let i = 0;
      // Stryker disable next-line EqualityOperator: the slot past the last entry is empty, read as an element of no key that nothing wakes
      while (i < bucket.count) {
        let item = entries[i];
        const kind = entryKind(item);
        let normalizedKey: NormalizedKey;
        if (kind === TIMEOUT) {
          const record = entries[i + 1] as CepRecord;
          const seq = entries[i + 2] as number;
          i += 3;
          // stale (the registration was dropped when the key woke, or its record was forgotten), or grouped already
          if (record.round === round || !this.isRegistered(record, ts, seq)) continue;
          record.round = round;
          record.group = groupCount;
          this.startGroup(groupCount++, record.normalizedKey, record, Number.NEGATIVE_INFINITY);
          continue;
        }
        if (kind === MARKED_ELEMENT) {
          item = entries[i + 1];
          normalizedKey = entries[i + 2] as NormalizedKey;
          i += 3;
        } else {
          normalizedKey = entries[i + 1] as NormalizedKey;
          i += 2;
        }
        let g: number;
        // Stryker disable next-line ConditionalExpression: the filter only spares the lookup of a key it knows absent
        const record = recordKeys.mayHold(normalizedKey) ? records.get(normalizedKey) : undefined;
        if (record !== undefined) {
          if (record.round === round) {
            g = record.group;
          } else {
            record.round = round;
            g = record.group = groupCount++;
            this.startGroup(g, normalizedKey, record, Number.NEGATIVE_INFINITY);
          }
        } else {
          const s = this.starterOf(normalizedKey);
          // neither a record nor a starter: the key is not woken, and this element starts nothing
          if (s < 0) continue;
          g = this.starterGroups[s]!;
          if (g < 0) {
            g = this.starterGroups[s] = groupCount++;
            this.startGroup(g, normalizedKey, undefined, this.starterFrom[s]!);
          }
        }
        // Stryker disable next-line EqualityOperator: an element at the first starter's time is fed (a timestamp goes whole)
        if (ts < this.groupFrom[g]!) continue;
        const tail = this.groupTails[g]!;
        if (tail < 0) this.groupHeads[g] = elementCount;
        else this.roundNext[tail] = elementCount;
        this.groupTails[g] = elementCount;
        this.roundElements[elementCount] = item;
        this.roundTimestamps[elementCount] = ts;
        this.roundNext[elementCount] = -1;
        elementCount++;
      }
    }
    const backend = this.backend;
    for (let g = 0; g < groupCount; g++) {
      const normalizedKey = this.groupKeys[g]!;
      const record = this.groupRecords[g];
      // Stryker disable next-line ConditionalExpression: a record keeps its key as denormalised when it was made: an equal key
      const key = record === undefined ? denormalizeKey(normalizedKey) : record.key;
      backend.setCurrentNormalizedKey(normalizedKey, key);
      this.wake(key, normalizedKey, this.groupHeads[g]!, record, watermark);
    }
    buckets.length = 0;
    this.clearRoundScratch(elementCount, groupCount);
  }

  /** Opens group `g` of the round, for the key (and its record, if it has one), fed its elements from `from` on. */
  private startGroup(
    g: number,
    normalizedKey: NormalizedKey,
    record: CepRecord | undefined,
    from: number,
  ): void {
    this.groupKeys[g] = normalizedKey;
    this.groupRecords[g] = record;
    this.groupFrom[g] = from;
    this.groupHeads[g] = -1;
    this.groupTails[g] = -1;
  }

  /**
   * Lists the round's starters (see {@link runRound}): each key with an element that may start something, from the
   * time of its first such element (the buckets are in time order), and each key with a queue a snapshot wrote, from
   * Infinity when it has no such element (woken, it is fed nothing). A key with a record is listed too and never looked
   * up. Elements that may start something are a small share in most patterns (a pattern's first stage).
   */
  private findStarters(buckets: readonly DueBucket[]): void {
    this.starterCount = 0;
    this.starterIndex.clear();
    const storedQueues = this.storedQueues;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: a shortcut: an empty set holds no key
    const anyStored = storedQueues.size > 0;
    for (let b = 0; b < buckets.length; b++) {
      const bucket = buckets[b]!;
      const entries = bucket.entries;
      let i = 0;
      // Stryker disable next-line EqualityOperator: the slot past the last entry is empty, read as an element of no key
      while (i < bucket.count) {
        const kind = entryKind(entries[i]);
        if (kind === TIMEOUT) {
          i += 3;
        } else if (kind === MARKED_ELEMENT) {
          this.addStarter(entries[i + 2] as NormalizedKey, bucket.timestamp);
          i += 3;
        } else {
          // Stryker disable next-line ConditionalExpression,LogicalOperator: a key listed with no queue to clear is fed nothing, and its initial NFA state stays as it is
          if (anyStored && storedQueues.has(entries[i + 1] as NormalizedKey)) {
            this.addStarter(entries[i + 1] as NormalizedKey, Number.POSITIVE_INFINITY);
          }
          i += 2;
        }
      }
    }
  }

  /** Lists a starter from `from`, or lowers the time of one listed (from Infinity: a key with a queue to clear). */
  private addStarter(normalizedKey: NormalizedKey, from: number): void {
    const s = this.starterOf(normalizedKey);
    if (s >= 0) {
      // Stryker disable next-line EqualityOperator: equal times leave it as it is
      if (from < this.starterFrom[s]!) this.starterFrom[s] = from;
      return;
    }
    const n = this.starterCount++;
    this.starterKeys[n] = normalizedKey;
    this.starterFrom[n] = from;
    this.starterGroups[n] = -1;
    if (n === STARTERS_SCANNED) for (let k = 0; k <= n; k++) this.starterIndex.set(this.starterKeys[k]!, k);
    // Stryker disable next-line ConditionalExpression,EqualityOperator: entries of the first starters only fill the Map early (it is cleared each round)
    else if (n > STARTERS_SCANNED) this.starterIndex.set(normalizedKey, n);
  }

  /** The index of the key's starter in this round, or -1 when it is none. */
  private starterOf(normalizedKey: NormalizedKey): number {
    const n = this.starterCount;
    // Stryker disable next-line ConditionalExpression: the Map only saves the scan, which finds the same starter
    if (n > STARTERS_SCANNED) return this.starterIndex.get(normalizedKey) ?? -1;
    const keys = this.starterKeys;
    for (let s = 0; s < n; s++) if (keys[s] === normalizedKey) return s;
    return -1;
  }

  /**
   * Lets the round's elements and records go; arrays grown past {@link ROUND_SCRATCH_KEPT} are dropped rather than
   * kept. Memory only: every slot is written before it is read in the next round.
   */
  // Stryker disable all: see above
  private clearRoundScratch(elementCount: number, groupCount: number): void {
    if (elementCount > ROUND_SCRATCH_KEPT) {
      this.roundElements = [];
      this.roundTimestamps = [];
      this.roundNext = [];
    } else {
      this.roundElements.fill(undefined, 0, elementCount);
    }
    if (groupCount > ROUND_SCRATCH_KEPT) {
      this.groupKeys = [];
      this.groupRecords = [];
      this.groupFrom = [];
      this.groupHeads = [];
      this.groupTails = [];
    } else {
      this.groupRecords.fill(undefined, 0, groupCount);
    }
    if (this.starterCount > ROUND_SCRATCH_KEPT) {
      this.starterKeys = [];
      this.starterFrom = [];
      this.starterGroups = [];
    }
    this.starterIndex.clear();
  }
  // Stryker restore all

  /**
   * Wakes the current key at the watermark: feeds the round's elements of its group (linked from `head`, or none: -1)
   * to the NFA, advances the NFA to it, then keeps the NFA state in the key's record (creating it when a partial match
   * started), or forgets the record when no partial match is left.
   */
  private wake(
    key: unknown,
    normalizedKey: NormalizedKey,
    head: number,
    record: CepRecord | undefined,
    watermark: number,
  ): void {
    // the queue an earlier snapshot wrote for the key goes now (rewritten before the next one if elements remain)
    // Stryker disable next-line ConditionalExpression: clearing a queue never written changes nothing, and the set is rebuilt at the next snapshot
    if (this.storedQueues.delete(normalizedKey)) this.elementQueueState.clear();
    // the key's timers up to the watermark fire now (a key fires once: its first one processes everything due)
    if (record !== undefined) this.dropRegistrations(record, watermark);
    const nfaState = record?.nfaState ?? (this.spareInitialState ??= this.nfa.createInitialNFAState());
    this.wakingKey = key;
    this.wakingNormalizedKey = normalizedKey;
    this.wakingRecord = record;
    this.processGroup(nfaState, head);
    this.advanceTime(nfaState, watermark);
    record = this.wakingRecord;
    this.wakingRecord = undefined;
    this.wakingKey = undefined;
    // Stryker disable next-line ConditionalExpression: an unchanged state was kept, and registered, when it last changed
    if (!nfaState.stateChanged) return;
    // Stryker disable next-line BooleanLiteral: processEvent resets both flags before each event; a flag left set costs one more state write
    nfaState.stateChanged = false;
    // Stryker disable next-line BooleanLiteral: as above
    nfaState.newStartPartialMatch = false;
    // No partial match left (so no shared-buffer event either): the key keeps nothing, registrations and all.
    if (this.nfa.isIdle(nfaState)) {
      if (record !== undefined) this.forget(record);
      return;
    }
    record ??= this.newRecord(key, normalizedKey);
    // Stryker disable next-line ConditionalExpression: a record listed twice is written once (the second finds its flag cleared)
    if (!record.dirty) this.markDirty(record);
    // now the key's own; an unchanged initial state was left as it was and serves the next key
    // Stryker disable next-line ConditionalExpression: a new initial state instead of the spare one only costs an allocation
    if (nfaState === this.spareInitialState) this.spareInitialState = undefined;
    // the partial matches' array grew by pushes, which leave spare capacity: it is kept between rounds at its size
    // Stryker disable next-line MethodExpression: memory only, as above
    nfaState.partialMatches = { items: nfaState.partialMatches.items.slice() };
    record.nfaState = nfaState;
    // what the registrations made while its elements were fed do not cover: restored partial matches after the first
    const timeout = this.nfa.nextTimeout(nfaState);
    if (timeout !== Number.POSITIVE_INFINITY) this.register(record, timeout);
  }

  /**
   * Feeds a round's elements of one key, linked from `head` in timestamp order (ties in arrival order), to the NFA,
   * `advanceTime` before each timestamp; elements of one timestamp are sorted by the comparator when there is one.
   */
  private processGroup(nfaState: NFAState, head: number): void {
    const elements = this.roundElements;
    const timestamps = this.roundTimestamps;
    const next = this.roundNext;
    const comparator = this.comparator;
    let i = head;
    while (i >= 0) {
      const ts = timestamps[i]!;
      this.advanceTime(nfaState, ts);
      const following = next[i]!;
      // Stryker disable next-line ConditionalExpression,EqualityOperator: sorting a single element changes nothing; element 0 heads the first group, so it follows none
      if (comparator !== undefined && following >= 0 && timestamps[following] === ts) {
        const same: IN[] = [];
        while (i >= 0 && timestamps[i] === ts) {
          same.push(elements[i] as IN);
          i = next[i]!;
        }
        // Array.prototype.sort is stable: ties keep arrival order
        same.sort(comparator);
        for (let k = 0; k < same.length; k++) this.processEvent(nfaState, same[k]!, ts);
      } else {
        while (i >= 0 && timestamps[i] === ts) {
          this.processEvent(nfaState, elements[i] as IN, ts);
          i = next[i]!;
        }
      }
    }
  }

  /** The record of the key being woken, created when a partial match registers its first timeout. */
  private recordOfWakingKey(): CepRecord {
    return (this.wakingRecord ??= this.newRecord(this.wakingKey, this.wakingNormalizedKey));
  }

  /** Forgets a record whose partial matches all ended (the key is current); what a snapshot wrote for it goes too. */
  private forget(record: CepRecord): void {
    // Stryker disable next-line ConditionalExpression: clearing an entry never written changes nothing (the flag saves a delete on a durable backend)
    if (record.stored) {
      this.computationStates.clear();
      // Stryker disable next-line BooleanLiteral: as above, a clear too many changes nothing
      record.stored = false;
    }
    this.records.delete(record.normalizedKey);
    this.recordKeys.remove(record.normalizedKey);
    record.key = undefined;
    record.nfaState = undefined;
    record.registrations = NO_REGISTRATIONS;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: the pool only saves allocations; a record it hands out is reset before use
    if (this.recordPool.length < RECORD_POOL_SIZE) this.recordPool.push(record);
  }

  /**
   * Registers the key at `time`, as `registerEventTimeTimer` would: a registration at a time the key already has is
   * the same one, and keeps its sequence number. O(registrations of the key), a few.
   */
  private register(record: CepRecord, time: number): void {
    const regs = record.registrations;
    let i = 0;
    // (past the end, undefined compares false)
    while (regs[i]! < time) i += 2;
    if (regs[i] === time) return;
    // Stryker disable next-line UpdateOperator: sequence numbers only tell registrations apart: counting down does too
    const seq = this.nextSeq++;
    // a new array: registrations change once per partial match, and most keys hold one or two
    record.registrations = regs.toSpliced(i, 0, time, seq);
    this.due.addTimeout(time, record, seq);
  }

  /** Whether the record still holds the registration (time, seq) (else its entry in the due buffer is stale). */
  private isRegistered(record: CepRecord, time: number, seq: number): boolean {
    const regs = record.registrations;
    // Stryker disable next-line EqualityOperator: the slot past the end holds no time
    for (let i = 0; i < regs.length; i += 2) if (regs[i] === time) return regs[i + 1] === seq;
    return false;
  }

  /** Forgets the record's registrations at or before `time`. */
  private dropRegistrations(record: CepRecord, time: number): void {
    const regs = record.registrations;
    let d = 0;
    // (past the end, undefined compares false)
    while (regs[d]! <= time) d += 2;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: slice(0) copies the same registrations
    if (d > 0) record.registrations = regs.slice(d);
  }

  private newRecord(key: unknown, normalizedKey: NormalizedKey): CepRecord {
    let record = this.recordPool.pop();
    // Stryker disable next-line ConditionalExpression: a fresh record instead of a pooled one only costs an allocation
    if (record === undefined) {
      record = {
        key,
        normalizedKey,
        nfaState: undefined,
        dirty: false,
        // Stryker disable next-line BooleanLiteral: a clear too many changes nothing (see forget)
        stored: false,
        registrations: NO_REGISTRATIONS,
        // rounds are numbered from 1
        round: 0,
        group: -1,
      };
    } else {
      // a pooled record was forgotten: no NFA state, no registrations, not stored
      record.key = key;
      record.normalizedKey = normalizedKey;
    }
    this.records.set(normalizedKey, record);
    this.recordKeys.add(normalizedKey, this.records);
    return record;
  }

  /**
   * After a restore: buffers every key's restored queue and keeps a record for every key with partial matches (keys
   * are assigned by key group, so this works at any parallelism). Timers are not needed: what is due follows from the
   * state. Keys are taken by their earliest queued element (keys with none last), as their timers would have fired:
   * elements of one time then come out in that order.
   */
  private restoreDueKeys(): void {
    const backend = this.backend;
    const seen = new Set<NormalizedKey>();
    type Restored = {
      key: unknown;
      normalizedKey: NormalizedKey;
      queue: ElementQueue<IN> | undefined;
      nfaState: NFAState | undefined;
    };
    // Stryker disable next-line ArrayDeclaration: an extra entry holds no queue and no NFA state, so restores nothing
    const restored: Restored[] = [];
    for (const key of [...backend.getKeys(NFA_STATE_NAME), ...backend.getKeys(EVENT_QUEUE_STATE_NAME)]) {
      backend.setCurrentKey(key);
      const normalizedKey = backend.currentNormalizedKey();
      if (seen.has(normalizedKey)) continue;
      seen.add(normalizedKey);
      let nfaState = this.computationStates.value();
      // a snapshot of an earlier version keeps NFA states whose partial matches all ended: none is kept now
      if (nfaState !== undefined && this.nfa.isIdle(nfaState)) {
        this.computationStates.clear();
        nfaState = undefined;
      }
      restored.push({ key, normalizedKey, queue: this.elementQueueState.value(), nfaState });
    }
    backend.clearCurrentKey();
    const earliest = (q: ElementQueue<IN> | undefined) =>
      q === undefined ? Number.POSITIVE_INFINITY : q.timestamps[0]!;
    // Array.prototype.sort is stable: keys with equal earliest elements keep the backend's order
    restored.sort((a, b) => earliest(a.queue) - earliest(b.queue) || 0);
    for (const { key, normalizedKey, queue, nfaState } of restored) {
      if (queue !== undefined) {
        for (let i = 0; i < queue.size; i++) {
          const ts = queue.timestamps[i]!;
          const element = queue.elements[i] as IN;
          if (this.nfa.startsNothing(element, ts)) this.due.addElement(ts, element, normalizedKey);
          else this.due.addStartingElement(ts, element, normalizedKey);
        }
        this.storedQueues.add(normalizedKey);
      }
      if (nfaState !== undefined) {
        const record = this.newRecord(key, normalizedKey);
        record.nfaState = nfaState;
        record.stored = true;
        const timeout = this.nfa.nextTimeout(nfaState);
        if (timeout !== Number.POSITIVE_INFINITY) this.register(record, timeout);
      }
    }
  }

  /**
   * Processing time with a comparator: feeds every queued element to the NFA (as Flink's `onProcessingTime`), in
   * timestamp order, `advanceTime` before each timestamp, the elements of one timestamp sorted by the comparator. The
   * queue leaves the state first (nothing but this loop touches it until it ends: no element can arrive meanwhile).
   */
  private processQueue(nfaState: NFAState, queue: ElementQueue<IN>, comparator: EventComparator<IN>): void {
    this.elementQueueState.clear();
    const timestamps = queue.timestamps;
    const elements = queue.elements;
    const size = queue.size;
    let i = 0;
    while (i < size) {
      const ts = timestamps[i]!;
      let end = i + 1;
      while (end < size && timestamps[end] === ts) end++;
      this.advanceTime(nfaState, ts);
      // Array.prototype.sort is stable: ties keep arrival order
      for (const e of (elements.slice(i, end) as IN[]).sort(comparator)) this.processEvent(nfaState, e, ts);
      i = end;
    }
    // lets the collector take the elements (a pooled queue's slots are written before they are read)
    elements.fill(undefined, 0, size);
    queue.size = 0;
    // Stryker disable next-line ConditionalExpression,LogicalOperator,EqualityOperator,BlockStatement: the pool only saves allocations; any queue it hands out is reset before use
    if (this.queuePool.length < QUEUE_POOL_SIZE && timestamps.length <= POOLED_CAPACITY) {
      this.queuePool.push(queue);
    }
  }

  /**
   * Event time: buffers an element until the watermark passes it: one entry in the due buffer, nothing per key (the
   * entry numbers it as Flink's timer for a newly buffered timestamp would be numbered), marked when it may start
   * something (see {@link runRound}).
   */
  private bufferEventInEventTime(event: IN, timestamp: number, mayStart: boolean): void {
    const normalizedKey = this.backend.currentNormalizedKey();
    if (mayStart) this.due.addStartingElement(timestamp, event, normalizedKey);
    else this.due.addElement(timestamp, event, normalizedKey);
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

  /**
   * Inserts after the last element with a timestamp <= this one: at the end, unless the clock went back (the system
   * clock can; a queue restored from a snapshot can hold later times than the clock).
   */
  private insertIntoQueue(queue: ElementQueue<IN>, event: IN, timestamp: number): void {
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
  }

  /**
   * Processing time with a comparator: queues an element under its arrival millisecond, with a timer just after it,
   * as Flink (a timer registered again for its time is the same timer).
   */
  private bufferEvent(event: IN, timestamp: number): void {
    const queue = this.elementQueueState.value();
    if (queue === undefined) {
      this.elementQueueState.update(this.newQueue(event, timestamp));
    } else {
      this.insertIntoQueue(queue, event, timestamp);
      this.elementQueueState.update(queue);
    }
    this.registerTimer(timestamp);
  }

  /** Processing time only: a timer just after `timestamp` (Flink's `registerTimer`). */
  private registerTimer(timestamp: number): void {
    this.timerService.registerProcessingTimeTimer(VoidNamespace, timestamp + 1);
  }

  /**
   * @internal For tests and tools: the wake-up time of each key this subtask holds something for in event time,
   * ascending (one per key: its earliest buffered element or its next timeout, whichever is earlier).
   */
  wakeUpTimes(): number[] {
    const first = new Map<NormalizedKey, number>();
    for (const record of this.records.values()) {
      if (record.registrations.length > 0) first.set(record.normalizedKey, record.registrations[0]!);
    }
    for (const bucket of this.due.buckets()) {
      forEachElement(bucket, (_element, normalizedKey) => {
        const known = first.get(normalizedKey);
        // Stryker disable next-line EqualityOperator: an equal time is already the one known
        if (known === undefined || bucket.timestamp < known) first.set(normalizedKey, bucket.timestamp);
      });
    }
    return [...first.values()].sort((a, b) => a - b);
  }

  /** @internal For tests and tools: how many keys this subtask keeps a record for in event time (keys with partial matches). */
  numKeyRecords(): number {
    return this.records.size;
  }

  /**
   * Partial matches (computation states that took an event) and shared-buffer events and entries over every key
   * of this subtask. Counted when a gauge is read (about once a second; O(keys)), between record calls, so the
   * record path pays nothing; the current key is put back afterwards.
   */
  private liveCounts(): { partialMatches: number; events: number; entries: number } {
    this.writeDirtyRecords();
    const backend = this.context.keyedStateBackend!;
    const counts = { partialMatches: 0, events: 0, entries: 0 };
    const keyless = this.currentKeyOrNone(backend);
    try {
      for (const key of [...backend.getKeys(NFA_STATE_NAME)]) {
        backend.setCurrentKey(key);
        // (a key listed under the NFA state's name holds one)
        for (const s of this.computationStates.value()!.partialMatches.items) {
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

  private markDirty(record: CepRecord): void {
    record.dirty = true;
    const dirty = this.dirtyRecords;
    // without snapshots the list would keep every forgotten record: those leave it when it grows this long
    // Stryker disable next-line ConditionalExpression,EqualityOperator,BlockStatement: memory only: the records kept are those a write would write
    if (dirty.length >= this.dirtyLimit) {
      let kept = 0;
      for (let i = 0; i < dirty.length; i++) {
        const r = dirty[i]!;
        if (r.dirty && r.key !== undefined) dirty[kept++] = r;
        else r.dirty = false;
      }
      dirty.length = kept;
      // Stryker disable next-line MethodExpression,ArithmeticOperator: the limit only decides when memory is reclaimed
      this.dirtyLimit = Math.max(1024, 2 * kept);
    }
    dirty.push(record);
  }

  /**
   * Event time: writes into keyed state, for every key, the elements it buffers (as its queue; a key that buffers
   * nothing had its queue cleared when it woke) and every NFA state changed since the last call, so a snapshot of
   * keyed state taken next holds every buffered element and partial match. O(buffered elements + records changed);
   * the record path writes no keyed state at all. The current key is put back afterwards.
   */
  override prepareKeyedStateSnapshot(): void {
    this.writeDirtyRecords();
    this.writeQueues();
  }

  /**
   * What keyed state would hold after {@link prepareKeyedStateSnapshot}, counted without writing it (the
   * `numStateEntries` gauge: a worker thread reads it every metrics tick, and writing every buffered element into keyed
   * state each second cost a CEP worker 3.5-5 % of its time, and kept what it wrote alive until the next tick). What
   * the backend holds now, plus: for each changed record, its NFA state's entry as the write would leave it (one when
   * it holds a state) less the entry it has (`stored`); for each key with buffered elements whose queue keyed state does
   * not hold, the queue the write would add (a stored queue is rewritten, or stays: one entry either way). O(buffered
   * elements + changed records), allocating only a set of the keys that buffer elements without a stored queue.
   */
  override countKeyedStateEntries(backend: KeyedStateBackend): number {
    let n = backend.numStateEntries();
    const dirty = this.dirtyRecords;
    for (let i = 0; i < dirty.length; i++) {
      const record = dirty[i]!;
      // as writeDirtyRecords: a record already written, or forgotten since (its entry was cleared then), is skipped
      if (!record.dirty || record.key === undefined) continue;
      n += (record.nfaState !== undefined ? 1 : 0) - (record.stored ? 1 : 0);
    }
    const buckets = this.due.unorderedBuckets();
    if (buckets.length === 0) return n;
    const stored = this.storedQueues;
    const unstored = new Set<NormalizedKey>();
    const note = (_element: unknown, normalizedKey: NormalizedKey): void => {
      if (!stored.has(normalizedKey)) unstored.add(normalizedKey);
    };
    for (let b = 0; b < buckets.length; b++) forEachElement(buckets[b]!, note);
    return n + unstored.size;
  }

  /** Writes the NFA state of every record changed since the last call (or clears it: see {@link CepRecord}). */
  private writeDirtyRecords(): void {
    const dirty = this.dirtyRecords;
    // Stryker disable next-line ConditionalExpression: a shortcut: an empty list writes nothing
    if (dirty.length === 0) return;
    const backend = this.backend;
    const keyless = this.currentKeyOrNone(backend);
    try {
      for (let i = 0; i < dirty.length; i++) {
        const record = dirty[i]!;
        // a record forgotten since (its entry was cleared then) or already written under an earlier place
        // Stryker disable next-line ConditionalExpression: a record listed twice is written twice alike
        if (!record.dirty) continue;
        record.dirty = false;
        // Stryker disable next-line ConditionalExpression: writing a forgotten record's missing state clears its entry, as forgetting did
        if (record.key === undefined) continue;
        backend.setCurrentNormalizedKey(record.normalizedKey, record.key);
        this.computationStates.update(record.nfaState);
        record.stored = true;
      }
    } finally {
      dirty.length = 0;
      this.dirtyLimit = 1024;
      if (keyless.none) backend.clearCurrentKey();
      else backend.setCurrentKey(keyless.key);
    }
  }

  /** Writes each key's buffered elements as its queue in keyed state. */
  private writeQueues(): void {
    const queues = new Map<NormalizedKey, ElementQueue<IN>>();
    for (const bucket of this.due.buckets()) {
      forEachElement(bucket, (element, normalizedKey) => {
        let queue = queues.get(normalizedKey);
        if (queue === undefined) {
          queue = { size: 0, timestamps: [], elements: [] };
          queues.set(normalizedKey, queue);
        }
        queue.timestamps.push(bucket.timestamp);
        queue.elements.push(element as IN);
        queue.size++;
      });
    }
    // A key whose queue keyed state holds still buffers elements: a key's elements leave the buffer only when it wakes,
    // and waking clears its queue. So every queue written before is rewritten here.
    const backend = this.backend;
    const keyless = this.currentKeyOrNone(backend);
    try {
      this.storedQueues.clear();
      for (const [normalizedKey, queue] of queues) {
        backend.setCurrentNormalizedKey(normalizedKey, denormalizeKey(normalizedKey));
        this.elementQueueState.update(queue);
        this.storedQueues.add(normalizedKey);
      }
    } finally {
      if (keyless.none) backend.clearCurrentKey();
      else backend.setCurrentKey(keyless.key);
    }
  }

  private getNFAState(): NFAState {
    return this.computationStates.value() ?? (this.spareInitialState ??= this.nfa.createInitialNFAState());
  }

  /** Processing time: writes a changed NFA state back, or drops it when no partial match is left. */
  private updateNFA(nfaState: NFAState): void {
    // Stryker disable next-line ConditionalExpression: an unchanged state is written as it was, or an idle one cleared again
    if (!nfaState.stateChanged) return;
    // Stryker disable next-line BooleanLiteral: processEvent resets both flags before each event; a flag left set costs one more state write
    nfaState.stateChanged = false;
    // Stryker disable next-line BooleanLiteral: as above
    nfaState.newStartPartialMatch = false;
    if (this.nfa.isIdle(nfaState)) {
      // No partial match left (so no shared-buffer event either): the key keeps no NFA state; the next event
      // starts from an initial state as if the key were new (Flink keeps the state until the key's state expires).
      this.computationStates.clear();
      return;
    }
    this.computationStates.update(nfaState);
    // now the key's own; an unchanged initial state was left as it was and serves the next key
    // Stryker disable next-line ConditionalExpression: a new initial state instead of the spare one only costs an allocation
    if (nfaState === this.spareInitialState) this.spareInitialState = undefined;
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
      else this.registerTimeouts(nfaState, timestamp);
    } else {
      // Stryker disable next-line ConditionalExpression: a flag set without a change costs one more state write
      if (changedBefore) nfaState.stateChanged = true;
    }
    // (newStartPartialMatch is read only right after nfa.process above, which sets it for this event alone)
    this.processMatchedSequences(matches, timestamp);
  }

  private registerTimeoutTimers(nfaState: NFAState, timestamp: number): void {
    if (this.nfa.windowTime > 0 && nfaState.newStartPartialMatch)
      this.registerTimer(timestamp + this.nfa.windowTime);
    // Weir: also wake up when a previous-to-current gap can expire, so those partial matches time out without
    // waiting for the key's next element (Flink registers only the first-to-last window).
    for (const gap of this.gapWindows) this.registerTimer(timestamp + gap);
  }

  /**
   * Event time: the registrations Flink's timers would make (see registerTimeoutTimers), on the key's record. One at
   * or before the watermark of the round under way is not made: it would fire with nothing left to do, as the key is
   * advanced to the watermark before the round ends (so a window of 0, at the event's own time, registers nothing).
   */
  private registerTimeouts(nfaState: NFAState, timestamp: number): void {
    if (nfaState.newStartPartialMatch) this.registerAfterRound(timestamp + this.nfa.windowTime);
    for (const gap of this.gapWindows) this.registerAfterRound(timestamp + gap);
  }

  private registerAfterRound(time: number): void {
    if (time > this.roundWatermark) this.register(this.recordOfWakingKey(), time);
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

/** Calls `fn` with each element of the bucket and its key, in order (for snapshots and tools, not the record path). */
function forEachElement(
  bucket: DueBucket,
  fn: (element: unknown, normalizedKey: NormalizedKey) => void,
): void {
  const entries = bucket.entries;
  let i = 0;
  while (i < bucket.count) {
    const item = entries[i];
    const kind = entryKind(item);
    if (kind === TIMEOUT) {
      i += 3;
    } else if (kind === MARKED_ELEMENT) {
      fn(entries[i + 1], entries[i + 2] as NormalizedKey);
      i += 3;
    } else {
      fn(item, entries[i + 1] as NormalizedKey);
      i += 2;
    }
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
