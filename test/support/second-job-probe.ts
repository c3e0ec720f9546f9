// The second-job probe: in a fresh process, runs the engine's per-job objects through one "job", then makes the next
// job's and reports, with V8's intrinsics, whether V8 kept the first job's hidden classes and optimised code.
// Run by test/second-job-code.test.ts as `node --allow-natives-syntax --import tsx test/support/second-job-probe.ts`;
// prints one JSON object of named booleans. A fresh process, because a hidden class changes once per process: in the
// suite's own process another test may already have changed it, and the check would then pass on any code.
import { OutboundChannel, type OutboundLink } from '../../src/runtime/outbound-channel.ts';
import { BusyTimeTracker } from '../../src/runtime/busy-time-tracker.ts';
import { KeyRows } from '../../src/state/heap/key-rows.ts';
import { TimerHeap } from '../../src/time/timer-heap.ts';
import { AbstractStreamOperator } from '../../src/operators/stream-operator.ts';
import type { Output } from '../../src/operators/output.ts';
import type { StreamEdge } from '../../src/graph/stream-graph.ts';
import { NumberKeyFilter } from '../../src/cep/operator/number-key-filter.ts';
import { DueBuffer } from '../../src/cep/operator/due-buffer.ts';

type Fn = (...args: any[]) => any;
const native = (params: string[], body: string): Fn => new Function(...params, body) as Fn;
const sameMap = native(['a', 'b'], 'return %HaveSameMap(a, b)');
const prepare = native(['f'], '%PrepareFunctionForOptimization(f)');
const optimizeNext = native(['f'], '%OptimizeFunctionOnNextCall(f)');
// Bit 4 of V8's optimization status: the function runs optimised code (the same bit in Node 20 to 24).
const optimized = native(['f'], 'return (%GetOptimizationStatus(f) & 16) !== 0');

/**
 * Whether `f`, optimised on the first job's objects (`first()` gives the arguments of each call, `calls` of them before
 * it is optimised), still runs optimised code after a call on the next job's.
 */
function keepsCode<A extends unknown[]>(
  f: (...args: A) => unknown,
  first: () => A,
  next: A,
  calls = 200,
): boolean {
  prepare(f);
  for (let i = 0; i < calls; i++) f(...first());
  optimizeNext(f);
  f(...first());
  if (!optimized(f)) throw new Error(`${f.name} was not optimised on the first job's objects`);
  f(...next);
  return optimized(f);
}

const results: Record<string, boolean> = {};

// The busy-time tracker's objects: a job's sampled roots and hops store fractions of a millisecond into them.
{
  const before = new BusyTimeTracker(true, 0);
  const beforeTime = before.track();
  const used = new BusyTimeTracker(true, 0);
  const time = used.track();
  for (let i = 0; i < 3; i++) {
    const start = used.beginBatch();
    const outer = used.beginHop();
    used.endHop(time, outer, -start - 0.25);
    used.endBatch(time, start - 0.5);
  }
  used.sample(1000.5);
  used.sample(2000.75);
  time.exactBackPressuredMs += 0.5;
  results.busyTimeTracker = sameMap(before, used);
  results.subtaskTime = sameMap(beforeTime, time);
  results.sampledShare = sameMap(beforeTime.batches, time.batches);
  results.rootKind = sameMap(
    (before as unknown as { batches: object }).batches,
    (used as unknown as { batches: object }).batches,
  );
}

// A channel to another thread: its first wait for credit stores the time it began.
{
  const link: OutboundLink = { send() {}, markDirty() {}, mismatch: () => new Error('mismatch') };
  const edge = { source: { name: 'a' }, target: { name: 'b' }, partitioning: { kind: 'hash' } } as StreamEdge;
  const before = new OutboundChannel(link, 1, edge, 0, 0, 2, 0, 1);
  const used = new OutboundChannel(link, 1, edge, 0, 0, 2, 0, 1);
  used.process({ n: 1 }, 0);
  used.grant(1);
  results.outboundChannel = sameMap(before, used);
}

// The key rows of a backend: a fresh backend's rows, and its first lookup before any key is cached.
{
  const write = (rows: KeyRows, key: number): number => rows.rowForWrite(key);
  const lookup = (rows: KeyRows, key: number): number => rows.rowOf(key);
  const first = new KeyRows();
  first.addColumn();
  for (let key = 0; key < 100; key++) write(first, key);
  const fresh = (): KeyRows => {
    const rows = new KeyRows();
    rows.addColumn();
    return rows;
  };
  results.keyRowsCells = sameMap(first.cells, fresh().cells);
  results.keyRowsLookup = keepsCode(lookup, (): [KeyRows, number] => [first, 7], [fresh(), 7]);
  results.keyRowsWrite = keepsCode(write, (): [KeyRows, number] => [first, 7], [fresh(), 7]);
}

// A timer heap: the next job's heap is empty at its first watermarks.
{
  const namespaceKey = (n: string): string => n;
  const first = new TimerHeap<string>(namespaceKey);
  for (let t = 0; t < 50; t++) first.add(1_700_000_000_000 + t, t, t, 'w');
  const peek = (heap: TimerHeap<string>): number | undefined => heap.peekTimestamp();
  results.timerHeapPeek = keepsCode(peek, (): [TimerHeap<string>] => [first], [
    new TimerHeap<string>(namespaceKey),
  ]);
}

// An operator's watermark: the timer services the runtime gives each subtask of each job.
{
  class Forward extends AbstractStreamOperator<number> {}
  const output = { emitWatermark() {} } as unknown as Output<number>;
  let fired = 0;
  class Timers {
    advanceWatermark(watermark: number): void {
      fired += watermark > 0 ? 1 : 0;
    }
  }
  const operator = (): Forward => {
    const op = new Forward();
    op.setup({} as never, output);
    op.timerServices = new Timers();
    return op;
  };
  const watermark = (op: Forward, w: number): void => op.processWatermark(w);
  const firstOperator = operator();
  results.operatorWatermark = keepsCode(watermark, (): [Forward, number] => [firstOperator, 1], [
    operator(),
    2,
  ]);
  results.operatorTimersFired = fired === 202;
}

// The CEP operator's filter of number keys: its table grows (at 129, 257, 513 and 1,025 keys) from the keys of the
// operator's records, the first job's after V8 recorded the call, the next job's at its 129th key.
{
  const add = (filter: NumberKeyFilter, records: Map<number, unknown>, key: number): void => {
    records.set(key, key);
    filter.add(key, records);
  };
  const first = new NumberKeyFilter();
  const firstRecords = new Map<number, unknown>();
  let key = 0;
  const next = new NumberKeyFilter();
  const nextRecords = new Map<number, unknown>();
  for (let k = 0; k < 128; k++) {
    nextRecords.set(k, k);
    next.add(k, nextRecords);
  }
  results.numberKeyFilterGrow = keepsCode(
    add,
    (): [NumberKeyFilter, Map<number, unknown>, number] => [first, firstRecords, key++],
    [next, nextRecords, 128],
    1100,
  );
  results.numberKeyFilterHolds = [...nextRecords.keys()].every((k) => next.mayHold(k));
}

// The CEP operator's buffer of what is due in event time: a job's buckets of elements and timeouts.
{
  const used = new DueBuffer();
  for (let t = 0; t < 20; t++) used.addElement(1_700_000_000_000 + t, { t }, t);
  const heap = (buffer: DueBuffer): unknown => (buffer as unknown as { heap: unknown }).heap;
  results.dueBufferHeap = sameMap(heap(used), heap(new DueBuffer()));
}

console.log(JSON.stringify(results));
