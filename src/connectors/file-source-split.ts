// FileSourceSplit: one file of a file source as a split, with how far it has been read.
import { ConfigurationError } from '../core/errors.ts';
import type { FileOffset } from './file-format.ts';

/**
 * A file to read (Flink's FileSourceSplit): its path and the position just past the last record emitted from
 * it, `{ offset: 0, line: 0 }` when it has not been started. A file is one split from start to end: line formats
 * and gzip cannot be cut at arbitrary bytes without reading what comes before, as for Flink's non-splittable
 * stream formats. `finished` marks a file a monitoring source has read completely, kept so that the subtask
 * owning it after a restore does not read it again.
 */
export interface FileSourceSplit extends FileOffset {
  readonly path: string;
  readonly finished?: boolean;
}

/** Checks a split restored from a snapshot, naming the source when it is not one. */
export function checkFileSplit(split: unknown, sourceName: string): FileSourceSplit {
  const s = split as Partial<FileSourceSplit> | undefined;
  const ok =
    typeof s?.path === 'string' &&
    Number.isSafeInteger(s.offset) &&
    s.offset! >= 0 &&
    Number.isSafeInteger(s.line) &&
    s.line! >= 0 &&
    (s.columns === undefined || Array.isArray(s.columns));
  if (!ok) {
    throw new ConfigurationError(
      `FileSource '${sourceName}': not a file split: ${JSON.stringify(split)}; expected { path, offset, line, columns? }`,
    );
  }
  return s as FileSourceSplit;
}

/** A split of `path` at `at`, with its own copy of the header's columns. */
export function fileSplit(path: string, at: FileOffset, finished = false): FileSourceSplit {
  const columns = at.columns && [...at.columns];
  const split = { path, offset: at.offset, line: at.line, columns };
  return finished ? { ...split, finished } : split;
}
