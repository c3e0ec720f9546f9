// Which splits a source subtask reads: the enumerator's on a fresh start, a snapshot's reassigned on a restore.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigurationError } from '../core/errors.ts';
import type { PollResult, Source, SourceReader, SplitEnumerator } from '../core/source.ts';
import { assignSplits, openSourceReader } from './split-assignment.ts';

const enumerator = (splits: string[], assign?: (split: string, index: number) => number) =>
  ({ initialSplits: () => splits, ...(assign !== undefined ? { assign } : {}) }) as SplitEnumerator<string>;

/** Every subtask's splits, 0..parallelism-1. */
function all(
  e: SplitEnumerator<string>,
  restored: readonly unknown[] | undefined,
  parallelism: number,
): string[][] {
  return Array.from({ length: parallelism }, (_, i) => assignSplits(e, restored, i, parallelism, 'src'));
}

describe('assignSplits', () => {
  it('fresh start: round robin over the initial splits by default', () => {
    assert.deepEqual(all(enumerator(['a', 'b', 'c', 'd', 'e']), undefined, 2), [
      ['a', 'c', 'e'],
      ['b', 'd'],
    ]);
    assert.deepEqual(all(enumerator(['a']), undefined, 3), [['a'], [], []]);
  });

  it("fresh start: the enumerator's assign decides, with each split's index", () => {
    const seen: string[] = [];
    const e = enumerator(['a', 'b', 'c'], (split, index) => {
      seen.push(`${split}${index}`);
      return split === 'a' ? 1 : 0;
    });
    assert.deepEqual(assignSplits(e, undefined, 0, 2, 'src'), ['b', 'c']);
    assert.deepEqual(seen, ['a0', 'b1', 'c2']);
    assert.deepEqual(assignSplits(e, undefined, 1, 2, 'src'), ['a']);
  });

  it('restore at the same parallelism: each subtask gets its own splits back, not reassigned', () => {
    // The enumerator would give every split to subtask 0: ignored at the same parallelism.
    const e = enumerator(['x'], () => 0);
    const restored = [['b'], ['a', 'c'], undefined];
    assert.deepEqual(all(e, restored, 3), [['b'], ['a', 'c'], []]);
    // A copy: changing it leaves the snapshot as it was.
    const mine = assignSplits(e, restored, 1, 3, 'src');
    mine.push('z');
    assert.deepEqual(restored[1], ['a', 'c']);
  });

  it("restore at another parallelism: all old subtasks' splits, in old subtask order, assigned again", () => {
    const restored = [['a', 'b'], undefined, ['c'], ['d', 'e']];
    assert.deepEqual(all(enumerator(['unused']), restored, 2), [
      ['a', 'c', 'e'],
      ['b', 'd'],
    ]);
    const seen: string[] = [];
    const e = enumerator([], (split, index) => {
      seen.push(`${split}${index}`);
      return 2;
    });
    assert.deepEqual(all(e, restored, 3), [[], [], ['a', 'b', 'c', 'd', 'e']]);
    assert.deepEqual(seen.slice(0, 5), ['a0', 'b1', 'c2', 'd3', 'e4']);
  });

  it('refuses a snapshot state that is not a list of splits, naming the source and the old subtask', () => {
    assert.throws(
      () => assignSplits(enumerator([]), [['a'], { offset: 3 }], 0, 2, 'orders'),
      (e: unknown) =>
        e instanceof ConfigurationError &&
        e.message ===
          `Source 'orders': the snapshot's state of subtask 2/2 is not a list of splits: {"offset":3}`,
    );
    // Checked at any parallelism, before the splits are used.
    assert.throws(() => assignSplits(enumerator([]), ['a'], 0, 3, 'orders'), /subtask 1\/1 is not a list/);
  });

  it('refuses an assignment outside 0..parallelism-1, naming the source and the split', () => {
    for (const owner of [-1, 2, 0.5, Number.NaN]) {
      assert.throws(
        () =>
          assignSplits(
            enumerator(['p'], () => owner),
            undefined,
            0,
            2,
            'orders',
          ),
        (e: unknown) =>
          e instanceof ConfigurationError &&
          e.message ===
            `Source 'orders': its enumerator assigned split "p" to subtask index ${owner}, outside 0..1`,
      );
    }
    assert.deepEqual(
      assignSplits(
        enumerator(['p'], () => 1),
        undefined,
        1,
        2,
        'orders',
      ),
      ['p'],
    );
  });
});

describe('openSourceReader', () => {
  const reader = (log: string[]): SourceReader<string, string> => ({
    addSplits: (splits) => log.push(`add ${splits.join(',')}`),
    snapshotState: () => [],
    pollNext: (): PollResult => 'end',
  });

  it('hands the reader its assigned splits and tells it whether it was restored', () => {
    const log: string[] = [];
    const contexts: unknown[] = [];
    const source: Source<string, string> = {
      boundedness: 'bounded',
      createEnumerator: (ctx) => {
        log.push(`enumerator ${ctx.parallelism} ${ctx.sourceName}`);
        return enumerator(['a', 'b', 'c']);
      },
      createReader: (ctx) => {
        contexts.push(ctx.restored);
        return reader(log);
      },
    };
    openSourceReader(source, { subtaskIndex: 1, parallelism: 2, sourceName: 'src' });
    openSourceReader(source, { subtaskIndex: 0, parallelism: 2, sourceName: 'src' }, [['c'], ['a', 'b']]);
    assert.deepEqual(log, ['enumerator 2 src', 'add b', 'enumerator 2 src', 'add c']);
    assert.deepEqual(contexts, [false, true]);
  });

  it('leaves a reader without an enumerator alone', () => {
    const log: string[] = [];
    const r = reader(log);
    const source: Source<string> = { boundedness: 'bounded', createReader: () => r };
    assert.equal(openSourceReader(source, { subtaskIndex: 0, parallelism: 1, sourceName: 's' }), r);
    assert.deepEqual(log, []);
  });

  it('refuses a reader without addSplits or snapshotState when the source has an enumerator', () => {
    for (const missing of ['addSplits', 'snapshotState'] as const) {
      const r: Partial<SourceReader<string, string>> = { ...reader([]) };
      delete r[missing];
      const source: Source<string, string> = {
        boundedness: 'bounded',
        createEnumerator: () => enumerator([]),
        createReader: () => r as SourceReader<string, string>,
      };
      assert.throws(
        () => openSourceReader(source, { subtaskIndex: 0, parallelism: 1, sourceName: 'files' }),
        (e: unknown) =>
          e instanceof ConfigurationError &&
          e.message ===
            "Source 'files' has an enumerator, so its reader must implement addSplits and snapshotState",
        missing,
      );
    }
  });
});
