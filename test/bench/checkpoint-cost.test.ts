// The benchmark's checkpointed cells: with a checkpoint every few ms each computes exactly the limit's output (the
// runner's verification), completes checkpoints, and the report sets each beside the same system without them; and
// the checkpoint-state benchmark's Weir side checkpoints every key's value and its table reads as the runs.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Measurement } from '../../bench/runner/measurement.ts';
import type { CellSpec } from '../../bench/runner/measure.ts';
import { runCellInChild } from '../../bench/runner/node-runner.ts';
import { runCheckpointState } from '../../bench/runner/checkpoint-state.ts';
import { renderCheckpointCost, renderCheckpointState } from '../../bench/runner/report-checkpoints.ts';
import { type CheckpointStateResult, keysFor, stateValue } from '../../bench/weir/checkpoint-job.ts';
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

describe('checkpoint-state benchmark', () => {
  it("draws each key's value as Flink's side does (the same letters for key 0 in CheckpointStateMain.value)", () => {
    assert.equal(stateValue(0).length, 200);
    assert.equal(stateValue(0).slice(0, 40), 'quzzptirwetbkelbhbdqmuhpfybxseirkcdronre');
    assert.equal(stateValue(123456).slice(0, 40), 'rfppuhrwmkdkyqsrnlggkqrahfjktfjpgctbxkgq');
    assert.equal(keysFor(1), 4_166);
  });

  it("Weir's job checkpoints every key's 200 letters on the heap and on LMDB", async () => {
    const results = await runCheckpointState(
      { sizesMb: [1], runs: 1, flink: false, inProcess: false },
      () => {},
    );
    assert.deepEqual(
      results.map((r) => [r.system, r.mb, r.keys, r.run]),
      [
        ['weir', 1, 4_166, 0],
        ['weir-lmdb', 1, 4_166, 0],
      ],
    );
    for (const r of results) {
      assert.ok(r.checkpointedBytes >= 4_166 * 200, `${r.system} wrote ${r.checkpointedBytes} bytes`);
      assert.ok(r.directoryBytes >= r.checkpointedBytes, `${r.system}: ${r.directoryBytes} bytes on disk`);
      assert.ok(r.durationMs >= 0 && r.buildMs > 0);
    }
  });

  it('renders the median and spread of the runs per size and system, sizes from the first run', () => {
    const run = (system: string, r: number, durationMs: number): CheckpointStateResult => ({
      system,
      run: r,
      mb: 64,
      keys: 266_666,
      valueBytes: 200,
      buildMs: 2_000,
      durationMs,
      checkpointedBytes: 60_000_000,
      directoryBytes: 61_000_000,
      ...(system.startsWith('flink') ? { syncMs: 40, asyncMs: 1_200 } : {}),
    });
    const lines = renderCheckpointState([
      run('flink-rocksdb-p1', 0, 900),
      run('weir', 0, 500),
      run('weir', 1, 700),
      run('weir', 2, 12_000),
    ]);
    assert.deepEqual(lines.slice(4), [
      '| 64 | 266,666 | Weir heap | 700 ms | 500 ms – 12.0 s | 3 | 60.0 | 61.0 | – | 2000 ms |',
      '| 64 | 266,666 | Flink embedded RocksDB | 900 ms | 900 ms – 900 ms | 1 | 60.0 | 61.0 | 40 ms / 1200 ms | 2000 ms |',
    ]);
    assert.deepEqual(renderCheckpointState([]), []);
  });
});
