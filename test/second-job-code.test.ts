// A thread's second job: the engine's per-job objects keep the hidden classes, and the code V8 optimised, of the first.
//
// A kept worker runs job after job (the bench's runs, a restart, the test suite); V8's optimised code for the record
// path relies on the hidden classes of the objects it met and on the types its comparisons and loads met. Objects
// made anew by each job that differ from the first job's in either throw that code away at the next job's first
// records, and it is compiled again on every thread (docs/performance.md, "A kept worker's second job"). The checks
// run in a fresh process (test/support/second-job-probe.ts): a hidden class changes once per process.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runChildProcess } from './support/child-run.ts';

const probe = fileURLToPath(new URL('./support/second-job-probe.ts', import.meta.url));

describe("a thread's second job", () => {
  let results: Record<string, boolean> = {};
  before(async () => {
    const exit = await runChildProcess(probe, [], {
      timeoutMs: 60_000,
      what: 'the second-job probe',
      nodeOptions: ['--allow-natives-syntax'],
    });
    assert.equal(exit.code, 0, exit.stderr);
    results = JSON.parse(exit.stdout.trim().split('\n').pop()!) as Record<string, boolean>;
  });

  it('the busy-time tracker: fractions of a millisecond give its objects no new hidden class', () => {
    assert.deepEqual(
      {
        busyTimeTracker: results.busyTimeTracker,
        subtaskTime: results.subtaskTime,
        sampledShare: results.sampledShare,
        rootKind: results.rootKind,
      },
      { busyTimeTracker: true, subtaskTime: true, sampledShare: true, rootKind: true },
    );
  });

  it('a channel to another thread: its first wait for credit gives it no new hidden class', () => {
    assert.equal(results.outboundChannel, true);
  });

  it("the key rows: a fresh backend's cells and first lookups keep the previous backend's code", () => {
    assert.deepEqual(
      {
        cells: results.keyRowsCells,
        lookup: results.keyRowsLookup,
        write: results.keyRowsWrite,
      },
      { cells: true, lookup: true, write: true },
    );
  });

  it("a timer heap: an empty heap's first watermark keeps the previous heap's code", () => {
    assert.equal(results.timerHeapPeek, true);
  });

  it("the CEP operator's key filter and due buffer: the next job's keep the previous job's code and classes", () => {
    assert.deepEqual(
      {
        filterGrow: results.numberKeyFilterGrow,
        filterHolds: results.numberKeyFilterHolds,
        dueBuffer: results.dueBufferHeap,
      },
      { filterGrow: true, filterHolds: true, dueBuffer: true },
    );
  });

  it("an operator's watermark: the next subtask's timer services keep the previous subtask's code", () => {
    assert.deepEqual(
      { fired: results.operatorTimersFired, kept: results.operatorWatermark },
      { fired: true, kept: true },
    );
  });
});
