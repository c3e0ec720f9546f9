// CepOperator: runs a pattern's NFA per key over a stream, in event time (watermark-ordered) or processing time.
import { IllegalStateError } from '../../api/errors.ts';
import type { Collector } from '../../api/functions.ts';
import type { OutputTag } from '../../api/output-tag.ts';
import { closeFunction, instantiateFunction, openFunction } from '../../runtime/operators/user-function.ts';
import { AbstractStreamOperator, type OneInputStreamOperator } from '../../runtime/stream-operator.ts';
import type { InternalMapState, InternalValueState } from '../../state/internal-state.ts';
import { VoidNamespace, voidNamespaceSerializer } from '../../state/namespace.ts';
import { MapStateDescriptor, ValueStateDescriptor } from '../../state/state-descriptor.ts';
import type { InternalTimer, InternalTimerService, Triggerable } from '../../time/internal-timer-service.ts';
import { hasTimestamp, NO_TIMESTAMP } from '../../time/time-domain.ts';
import { isTimedOutPartialMatchHandler, type PatternProcessContext, type PatternProcessFunction } from '../functions.ts';
import type { AfterMatchSkipStrategy } from '../nfa/after-match-skip-strategy.ts';
import type { CompiledPattern } from '../nfa/compiler/nfa-compiler.ts';
import { NFA, type CepTimerService, type Match, type TimedOutMatch } from '../nfa/nfa.ts';
import type { NFAState } from '../nfa/nfa-state.ts';
import { nfaStateSerializer } from '../nfa/nfa-state-serializer.ts';
import { SharedBuffer } from '../nfa/shared-buffer/shared-buffer.ts';
import { SharedBufferAccessor } from '../nfa/shared-buffer/shared-buffer-accessor.ts';

/** Orders events that share a timestamp (Flink's `EventComparator`); ties keep arrival order. */
export type EventComparator<T> = (a: T, b: T) => number;

const NFA_STATE_NAME = 'nfaStateName';
const EVENT_QUEUE_STATE_NAME = 'eventQueuesStateName';

/**
 * Flink's `CepOperator`, keyed (non-keyed streams are keyed by a constant at parallelism 1).
 *
 * Event time: an element later than the current watermark is buffered in keyed MapState under its timestamp, and
 * an event-time timer is registered at that timestamp (modern Flink; older versions used watermark + 1 — the
 * matches are the same, but a timer per buffered timestamp fires only where there is work). When the watermark
 * passes, `onEventTime` feeds the buffered elements to the NFA in timestamp order (ties: the comparator, then
 * arrival), calling `advanceTime` before each timestamp, then advances to the watermark so partial matches past
 * `within` time out. Elements with timestamp <= watermark are late: side output (`sideOutputLateData`) or dropped.
 * A timer at first-event + window (and previous-event + gap for PREVIOUS_AND_CURRENT windows) makes timeouts fire
 * without further input.
 *
 * Processing time: without a comparator each element is processed at once at the current processing time;
 * with one, elements are buffered per millisecond and sorted on a processing-time timer.
 *
 * State — the NFA state with the shared-buffer graph it reaches (one ValueState, flattened for snapshots by
 * `nfaStateSerializer`), the shared-buffer counters (ValueState) and the element queue (MapState) — is keyed state,
 * so it is snapshotted and restored (and rescaled) with the job.
 */
export class CepOperator<IN, KEY, OUT>
  extends AbstractStreamOperator<OUT>
  implements OneInputStreamOperator<IN, OUT>, Triggerable<KEY, VoidNamespace>
{
  private nfa!: NFA<IN>;
  private computationStates!: InternalValueState<VoidNamespace, NFAState>;
  private elementQueueState!: InternalMapState<VoidNamespace, number, IN[]>;
  private accessor!: SharedBufferAccessor<IN>;
  private timerService!: InternalTimerService<VoidNamespace>;
  private readonly fn: PatternProcessFunction<IN, OUT, any>;
  private readonly matchContext = new MatchContext(this);
  private collector!: CepCollector<OUT>;
  private readonly cepTimerService: CepTimerService = { currentProcessingTime: () => this.timerService.currentProcessingTime() };
  private readonly handleTimeout: boolean;
  private readonly gapWindows: number[];
  /** Late elements dropped because no late-data side output was set (Flink's numLateRecordsDropped). */
  numLateRecordsDropped = 0;

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
    this.gapWindows = [...new Set([...compiled.windowTimes.values()].filter((w) => w > 0 && w !== compiled.windowTime))];
  }

  get skipStrategy(): AfterMatchSkipStrategy {
    return this.compiled.afterMatchSkipStrategy;
  }

  override open(): void | Promise<void> {
    const backend = this.context.keyedStateBackend;
    if (backend === undefined) {
      throw new IllegalStateError(`Operator '${this.context.operatorName}': CEP needs a keyed stream (CEP.pattern keys it)`);
    }
    this.computationStates = backend.getOrCreateKeyedState(new ValueStateDescriptor<NFAState>(NFA_STATE_NAME, { serializer: nfaStateSerializer }), voidNamespaceSerializer);
    this.computationStates.setCurrentNamespace(VoidNamespace);
    this.elementQueueState = backend.getOrCreateKeyedState(
      new MapStateDescriptor<number, IN[]>(EVENT_QUEUE_STATE_NAME),
      voidNamespaceSerializer,
    );
    this.elementQueueState.setCurrentNamespace(VoidNamespace);
    this.accessor = new SharedBufferAccessor<IN>(new SharedBuffer<IN>(backend));
    this.timerService = this.context.getInternalTimerService<KEY, VoidNamespace>('watermark-callbacks', voidNamespaceSerializer, this);
    this.nfa = new NFA(this.compiled, this.handleTimeout);
    this.collector = new CepCollector(this.output);
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
      this.bufferEvent(value, timestamp);
    } else if (this.lateDataOutputTag !== undefined) {
      this.output.collectSide(this.lateDataOutputTag, value, timestamp);
    } else {
      this.numLateRecordsDropped++;
    }
  }

  onEventTime(_timer: InternalTimer<KEY, VoidNamespace>): void {
    const watermark = this.timerService.currentWatermark();
    const nfaState = this.getNFAState();
    const timestamps = this.sortedTimestamps();
    for (const ts of timestamps) {
      if (ts > watermark) break;
      this.processBuffered(nfaState, ts);
    }
    this.advanceTime(nfaState, watermark);
    this.updateNFA(nfaState);
  }

  onProcessingTime(_timer: InternalTimer<KEY, VoidNamespace>): void {
    const nfaState = this.getNFAState();
    for (const ts of this.sortedTimestamps()) this.processBuffered(nfaState, ts);
    this.advanceTime(nfaState, this.timerService.currentProcessingTime());
    this.updateNFA(nfaState);
  }

  override close(): void | Promise<void> {
    return closeFunction(this.fn);
  }

  private processBuffered(nfaState: NFAState, ts: number): void {
    this.advanceTime(nfaState, ts);
    const elements = this.elementQueueState.get(ts);
    // remove before processing, as Flink: user code must not see the queue entry again
    this.elementQueueState.remove(ts);
    if (elements === undefined) return;
    const ordered = this.comparator === undefined ? elements : elements.slice().sort(this.comparator);
    for (const e of ordered) this.processEvent(nfaState, e, ts);
  }

  private sortedTimestamps(): number[] {
    const out: number[] = [];
    for (const ts of this.elementQueueState.keys()) out.push(ts);
    return out.sort((a, b) => a - b);
  }

  private bufferEvent(event: IN, timestamp: number): void {
    let elements = this.elementQueueState.get(timestamp);
    if (elements === undefined) {
      elements = [];
      this.registerTimer(timestamp);
    }
    elements.push(event);
    this.elementQueueState.put(timestamp, elements);
  }

  private registerTimer(timestamp: number): void {
    if (this.isProcessingTime) this.timerService.registerProcessingTimeTimer(VoidNamespace, timestamp + 1);
    else this.timerService.registerEventTimeTimer(VoidNamespace, timestamp);
  }

  private getNFAState(): NFAState {
    return this.computationStates.value() ?? this.nfa.createInitialNFAState();
  }

  private updateNFA(nfaState: NFAState): void {
    if (nfaState.stateChanged) {
      nfaState.stateChanged = false;
      nfaState.newStartPartialMatch = false;
      this.computationStates.update(nfaState);
    }
  }

  private processEvent(nfaState: NFAState, event: IN, timestamp: number): void {
    const matches = this.nfa.process(this.accessor, nfaState, event, timestamp, this.compiled.afterMatchSkipStrategy, this.cepTimerService);
    if (nfaState.stateChanged) {
      if (this.nfa.windowTime > 0 && nfaState.newStartPartialMatch) this.registerTimer(timestamp + this.nfa.windowTime);
      // Weir: also wake up when a previous-to-current gap can expire, so those partial matches time out without
      // waiting for the key's next element (Flink registers only the first-to-last window).
      for (const gap of this.gapWindows) this.registerTimer(timestamp + gap);
    }
    if (matches.length > 0) this.processMatchedSequences(matches, timestamp);
  }

  private advanceTime(nfaState: NFAState, timestamp: number): void {
    const { matches, timedOut } = this.nfa.advanceTime(this.accessor, nfaState, timestamp, this.compiled.afterMatchSkipStrategy);
    if (matches.length > 0) this.processMatchedSequences(matches, timestamp);
    if (timedOut.length > 0) this.processTimedOutSequences(timedOut);
  }

  private processMatchedSequences(matches: readonly Match<IN>[], timestamp: number): void {
    this.setTimestamp(timestamp);
    for (const m of matches) this.fn.processMatch(m, this.matchContext, this.collector);
  }

  private processTimedOutSequences(timedOut: readonly TimedOutMatch<IN>[]): void {
    if (!this.handleTimeout) return;
    const handler = this.fn as unknown as { processTimedOutMatch(m: unknown, ctx: PatternProcessContext): void };
    for (const t of timedOut) {
      this.setTimestamp(t.timestamp);
      handler.processTimedOutMatch(t.match, this.matchContext);
    }
  }

  private setTimestamp(timestamp: number): void {
    this.collector.timestamp = this.isProcessingTime ? NO_TIMESTAMP : timestamp;
    this.matchContext.currentTimestamp = timestamp;
  }

  /** @internal For the context: side outputs. */
  emitSide<X>(tag: OutputTag<X>, value: X): void {
    this.output.collectSide(tag, value, this.isProcessingTime ? NO_TIMESTAMP : this.matchContext.currentTimestamp);
  }

  /** @internal */
  currentProcessingTime(): number {
    return this.timerService.currentProcessingTime();
  }

  /** Test support: elements of the current key waiting for the watermark. */
  numBufferedElements(): number {
    let n = 0;
    for (const list of this.elementQueueState.values()) n += list.length;
    return n;
  }

  /** Test and bench support: events and entries the current key holds in the shared buffer. */
  sharedBufferSize(): { events: number; entries: number } {
    return { events: this.accessor.buffer.numEvents(), entries: this.accessor.buffer.numEntries() };
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
