// FileSource.monitorContinuously: new files picked up on the clock, split by path, the files taken checkpointed.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { OutputTag } from '../core/output-tag.ts';
import { StreamExecutionEnvironment } from '../api/stream-execution-environment.ts';
import { JobCancelledError } from '../execution/job-cancelled-error.ts';
import { ManualClock } from '../core/clock.ts';
import { CollectSink } from './collect-sink.ts';
import { FileSource } from './file-source.ts';
import type { ReaderOutput } from '../core/source.ts';
import { openSourceReader } from '../operators/split-assignment.ts';

let root: string;
before(() => {
  root = mkdtempSync(join(tmpdir(), 'weir-monitor-'));
});
after(() => rmSync(root, { recursive: true, force: true }));

function newDir(name: string): string {
  const path = join(root, name);
  mkdirSync(path);
  return path;
}

function lines(dir: string, name: string, ...values: number[]): void {
  writeFileSync(join(dir, name), values.map((v) => JSON.stringify({ v })).join('\n') + '\n');
}

class ListOutput<T> implements ReaderOutput<T> {
  readonly values: T[] = [];
  collect(value: T): void {
    this.values.push(value);
  }
  collectSide<X>(_tag: OutputTag<X>, _value: X): void {}
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('FileSource.monitorContinuously', () => {
  it('reads the files present, then new ones at each scan, skipping hidden files; unbounded until cancelled', async () => {
    const dir = newDir('job');
    const clock = new ManualClock(0);
    lines(dir, 'a.jsonl', 1, 2);
    const env = StreamExecutionEnvironment.create({ clock });
    const sink = new CollectSink<{ v: number }>();
    const source = FileSource.jsonLines<{ v: number }>(dir).monitorContinuously(1_000);
    assert.equal(source.boundedness, 'unbounded');
    env.fromSource(source, undefined, 'incoming').sinkTo(sink);
    const client = await env.executeAsync('monitor');
    while (sink.values.length < 2) await turn();
    lines(dir, '.c.jsonl', 99); // a file still being written: hidden, so never read
    lines(dir, 'b.jsonl', 3, 4);
    clock.advanceTo(1_000);
    while (sink.values.length < 4) await turn();
    await client.cancel();
    await assert.rejects(client.result, JobCancelledError);
    assert.deepEqual(
      sink.values.map((r) => r.v),
      [1, 2, 3, 4],
    );
  });

  it('checkpoints the files taken and the offset in the current one; a restore neither repeats nor skips', async () => {
    const dir = newDir('restore');
    lines(dir, 'a.jsonl', 1, 2, 3);
    lines(dir, 'b.jsonl', 4);
    const clock = new ManualClock(0);
    const source = FileSource.jsonLines<{ v: number }>(dir, { batchSize: 2 }).monitorContinuously(500);
    const context = { subtaskIndex: 0, parallelism: 1, sourceName: 'incoming', clock };
    const reader = openSourceReader(source, context);
    const out = new ListOutput<{ v: number }>();
    assert.equal(await reader.pollNext(out), 'more');
    assert.deepEqual(
      out.values.map((r) => r.v),
      [1, 2],
    );
    const splits = reader.snapshotState!();
    assert.deepEqual(splits, [
      { path: join(dir, 'a.jsonl'), offset: 16, line: 2, columns: undefined },
      { path: join(dir, 'b.jsonl'), offset: 0, line: 0, columns: undefined },
    ]);
    await reader.close?.();

    lines(dir, 'c.jsonl', 5);
    const restored = openSourceReader(source, context, [structuredClone(splits)]);
    const rest = new ListOutput<{ v: number }>();
    for (let i = 0; i < 4; i++) await restored.pollNext(rest);
    // The restored reader scans at once: c is new, a and b were taken before the checkpoint.
    assert.deepEqual(
      rest.values.map((r) => r.v),
      [3, 4, 5],
    );
    lines(dir, 'd.jsonl', 6);
    await restored.pollNext(rest); // before the next scan is due: nothing new
    assert.equal(rest.values.length, 3);
    clock.advanceTo(500);
    for (let i = 0; i < 2; i++) await restored.pollNext(rest);
    assert.deepEqual(
      rest.values.map((r) => r.v),
      [3, 4, 5, 6],
    );
    await restored.close?.();
  });

  it('splits new files among subtasks by path, each file to exactly one', async () => {
    const dir = newDir('split');
    for (let i = 0; i < 8; i++) lines(dir, `f${i}.jsonl`, i);
    const source = FileSource.jsonLines<{ v: number }>(dir).monitorContinuously(500);
    const seen: number[][] = [];
    for (let s = 0; s < 3; s++) {
      const reader = openSourceReader(source, {
        subtaskIndex: s,
        parallelism: 3,
        sourceName: 'x',
        clock: new ManualClock(0),
      });
      const out = new ListOutput<{ v: number }>();
      for (let i = 0; i < 8; i++) await reader.pollNext(out);
      await reader.close?.();
      seen.push(out.values.map((r) => r.v));
    }
    assert.deepEqual(
      seen.flat().sort((a, b) => a - b),
      [0, 1, 2, 3, 4, 5, 6, 7],
    );
    assert.equal(seen.filter((v) => v.length > 0).length > 1, true);
  });

  it('rescales: the files taken at parallelism 3 (finished, half-read, queued) go to their new owners at 1, 2 and 5', async () => {
    const dir = newDir('rescale');
    for (let i = 0; i < 9; i++) lines(dir, `f${i}.jsonl`, i * 10, i * 10 + 1, i * 10 + 2);
    const source = FileSource.jsonLines<{ v: number }>(dir, { batchSize: 2 }).monitorContinuously(500);
    const before: number[] = [];
    const restored: unknown[] = [];
    for (let s = 0; s < 3; s++) {
      const reader = openSourceReader(source, {
        subtaskIndex: s,
        parallelism: 3,
        sourceName: 'x',
        clock: new ManualClock(0),
      });
      const out = new ListOutput<{ v: number }>();
      for (let i = 0; i < 3; i++) await reader.pollNext(out);
      restored.push(structuredClone(reader.snapshotState!()));
      await reader.close?.();
      before.push(...out.values.map((r) => r.v));
    }
    const states = restored as { finished?: boolean; line: number }[][];
    assert.ok(
      states.flat().some((s) => s.finished === true),
      'a finished file in the snapshot',
    );
    assert.ok(
      states.flat().some((s) => s.finished !== true && s.line > 0),
      'a half-read file in the snapshot',
    );
    lines(dir, 'g.jsonl', 100);
    const all = [...Array(9).keys()].flatMap((i) => [i * 10, i * 10 + 1, i * 10 + 2]).concat(100);
    for (const parallelism of [1, 2, 3, 5]) {
      const after: number[] = [];
      for (let s = 0; s < parallelism; s++) {
        const context = { subtaskIndex: s, parallelism, sourceName: 'x', clock: new ManualClock(0) };
        const reader = openSourceReader(source, context, restored);
        const out = new ListOutput<{ v: number }>();
        // Polls until two polls in a row emit nothing: the reader has read every file it owns and waits.
        for (let quiet = 0, polls = 0; quiet < 2; polls++) {
          assert.ok(polls < 100, `subtask ${s} of ${parallelism} keeps emitting`);
          const count = out.values.length;
          await reader.pollNext(out);
          quiet = out.values.length === count ? quiet + 1 : 0;
        }
        await reader.close?.();
        after.push(...out.values.map((r) => r.v));
      }
      assert.deepEqual(
        [...before, ...after].sort((a, b) => a - b),
        all,
        `restored at parallelism ${parallelism}`,
      );
    }
  });

  it('refuses a bad interval', () => {
    const dir = newDir('mismatch');
    assert.throws(
      () => FileSource.jsonLines(dir).monitorContinuously(0),
      /monitoring interval must be > 0 ms, got 0/,
    );
  });
});
