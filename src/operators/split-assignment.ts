// Which source splits a subtask reads: the enumerator's on a fresh start, the snapshot's reassigned on a restore.
import { ConfigurationError } from '../core/errors.ts';
import type { Source, SourceReader, SourceReaderContext, SplitEnumerator } from '../core/source.ts';

/**
 * The splits subtask `subtaskIndex` of `parallelism` reads.
 *
 * Without a snapshot (`restored` undefined): the enumerator's initial splits that it assigns to this subtask.
 * From a snapshot (`restored[j]`: the unfinished splits old subtask j checkpointed): at the snapshot's parallelism,
 * each subtask gets its own splits back, as Flink keeps list state in place when the parallelism is unchanged;
 * at another, the splits of all old subtasks, in old subtask order, are assigned again by the enumerator (round
 * robin by default). Either way each split is read by exactly one subtask, since every subtask computes the same
 * assignment from the same plain data.
 *
 * Cost: O(total splits) per subtask, once, at start-up.
 */
export function assignSplits<SplitT>(
  enumerator: SplitEnumerator<SplitT>,
  restored: readonly unknown[] | undefined,
  subtaskIndex: number,
  parallelism: number,
  sourceName: string,
): SplitT[] {
  if (restored !== undefined) {
    restored.forEach((splits, j) => {
      if (splits !== undefined && !Array.isArray(splits)) {
        throw new ConfigurationError(
          `Source '${sourceName}': the snapshot's state of subtask ${j + 1}/${restored.length} is not a list of splits: ${JSON.stringify(splits)}`,
        );
      }
    });
    if (restored.length === parallelism) return [...((restored[subtaskIndex] as SplitT[] | undefined) ?? [])];
  }
  const all: readonly SplitT[] =
    restored === undefined
      ? enumerator.initialSplits()
      : (restored as (SplitT[] | undefined)[]).flatMap((splits) => splits ?? []);
  const mine: SplitT[] = [];
  for (let k = 0; k < all.length; k++) {
    const split = all[k]!;
    const owner = enumerator.assign === undefined ? k % parallelism : enumerator.assign(split, k);
    if (!(Number.isInteger(owner) && owner >= 0 && owner < parallelism)) {
      throw new ConfigurationError(
        `Source '${sourceName}': its enumerator assigned split ${JSON.stringify(split)} to subtask index ${owner}, outside 0..${parallelism - 1}`,
      );
    }
    if (owner === subtaskIndex) mine.push(split);
  }
  return mine;
}

/**
 * A reader of `source` for the subtask `context` describes, holding the splits it reads: the enumerator's, or
 * those of `restored` (every old subtask's checkpointed splits) reassigned. What the runtime does when a source
 * subtask opens; tests and tools that drive a reader by hand use it too.
 */
export function openSourceReader<T>(
  source: Source<T>,
  context: Omit<SourceReaderContext, 'restored'>,
  restored?: readonly unknown[],
): SourceReader<T> {
  const { subtaskIndex, parallelism, sourceName } = context;
  const reader = source.createReader({ ...context, restored: restored !== undefined });
  const enumerator = source.createEnumerator?.({ parallelism, sourceName });
  if (enumerator === undefined) return reader;
  if (typeof reader.addSplits !== 'function' || typeof reader.snapshotState !== 'function') {
    throw new ConfigurationError(
      `Source '${sourceName}' has an enumerator, so its reader must implement addSplits and snapshotState`,
    );
  }
  reader.addSplits(assignSplits(enumerator, restored, subtaskIndex, parallelism, sourceName));
  return reader;
}
