// The benchmark's checkpointed cells: with a checkpoint every few ms each computes exactly the limit's output (the
// runner's verification), completes checkpoints, and the report sets each beside the same system without them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Measurement } from '../../bench/runner/measurement.ts';
import type { CellSpec } from '../../bench/runner/measure.ts';
import { runCellInChild } from '../../bench/runner/node-runner.ts';
import { renderCheckpointCost } from '../../bench/runner/report-checkpoints.ts';
import { computeReference, findMismatches } from '../../bench/runner/verify.ts';
import type { WorkloadId } from '../../bench/workloads/params.ts';

const SEED = 42;
const KEYS = 1_000;

function spec(system: string, workload: WorkloadId): CellSpec {
  return {
    system,
    workload,
    events: 20_000,
    seed: SEED,
    parallelism: 1,
    keys: KEYS,
    warmup: 0,
    runs: 1,
    probe: false,
    budgetSeconds: Infinity,
    checkpointIntervalMs: 5,
  };
}

describe('checkpointed benchmark cells', () => {
  // Each in a child process, as the runner measures it (and so on one thread whatever the suite's mode).
  const cells: [string, WorkloadId][] = [
    ['weir-checkpointed', 'rolling-count'],
    ['weir-lmdb-checkpointed', 'tumbling-window'],
    ['weir-checkpointed', 'batching-timer'],
    ['weir-lmdb-checkpointed', 'batching-timer'],
  ];
  for (const [system, workload] of cells) {
    it(`${system} ${workload} matches the limit's count and checksum and completes checkpoints`, async () => {
      const m = await runCellInChild(spec(system, workload));
      assert.equal(m.status, 'ok', m.note);
      assert.deepEqual(findMismatches([m], await computeReference([m], SEED, KEYS)), []);
      assert.equal(m.runs.length, 1);
      // At least the final checkpoint of the bounded job; more when the run outlasts an interval.
      assert.ok((m.runs[0]?.checkpoints ?? 0) >= 1, `checkpoints: ${m.runs[0]?.checkpoints}`);
    });
  }
});

describe('renderCheckpointCost', () => {
  const cell = (system: string, workload: WorkloadId, rate: number, checkpoints?: number): Measurement => ({
    system,
    workload,
    status: 'ok',
    events: 1_000_000,
    parallelism: 1,
    runs: [
      {
        ms: 1,
        count: 1,
        checksum: 1,
        events: 1_000_000,
        ...(checkpoints === undefined ? {} : { checkpoints }),
      },
    ],
    eventsPerSecond: { median: rate, min: rate, max: rate },
  });

  it('sets each checkpointed system beside the same system without checkpoints, per workload', () => {
    const lines = renderCheckpointCost(
      [
        cell('weir', 'rolling-count', 4_000_000),
        cell('weir-checkpointed', 'rolling-count', 3_000_000, 2),
        cell('flink-rocksdb-p1', 'rolling-count', 200_000),
        cell('flink-rocksdb-checkpointed-p1', 'rolling-count', 150_000, 7),
        cell('weir-lmdb-checkpointed', 'batching-timer', 500_000, 1),
        cell('weir', 'tumbling-window', 3_000_000),
      ],
      1_000,
    );
    assert.deepEqual(lines.slice(2), [
      '| workload | state | events/s without | with checkpoints | × without | checkpoints per run |',
      '|---|---|---:|---:|---:|---:|',
      '| 2 keyed rolling count (ValueState) | Weir heap | 4.00 M | 3.00 M | 0.75 | 2 |',
      '| 2 keyed rolling count (ValueState) | Flink embedded RocksDB | 200 k | 150 k | 0.75 | 7 |',
      '| 7 process fn + event-time timer | Weir LMDB | – | 500 k | – | 1 |',
    ]);
    assert.match(lines[0] ?? '', /checkpoint every 1,000 ms/);
  });

  it('renders nothing when no checkpointed cell ran', () => {
    assert.deepEqual(renderCheckpointCost([cell('weir', 'rolling-count', 1)], undefined), []);
  });
});
