// FileCheckpointStorage: writes checkpoints and savepoints durably and atomically, retains the last N, loads them back.
import { defaultLogger, type Logger } from '../core/logger.ts';
import { createHash } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fsyncSync,
  openSync,
  readFileSync,
  readdirSync,
  renameSync,
  statSync,
  writeSync,
} from 'node:fs';
import { mkdir, open, readdir, rm } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { KeyGroupSnapshot } from '../state/keyed-state-backend.ts';
import type {
  CheckpointedJobSnapshot,
  CheckpointedOperatorSnapshot,
} from '../runtime/checkpointed-job-snapshot.ts';
import {
  CorruptCheckpointError,
  decodeMetadata,
  encodeMetadata,
  readMetadataDataFiles,
  type BlobRef,
  type CheckpointMetadata,
} from './checkpoint-metadata.ts';

const METADATA = '_metadata';
const CHECKPOINT_DIR = /^chk-(\d+)$/;

/** Collects the new blobs of one checkpoint into a single data file (one fsync instead of one per key group). */
export class DataFileBuilder {
  private readonly chunks: Uint8Array[] = [];
  private size = 0;
  constructor(
    /** The file's path relative to the metadata directory. */
    readonly relativePath: string,
  ) {}

  add(keyGroup: number, bytes: Uint8Array): BlobRef {
    const ref = { keyGroup, file: this.relativePath, offset: this.size, length: bytes.byteLength };
    this.chunks.push(bytes);
    this.size += bytes.byteLength;
    return ref;
  }

  get isEmpty(): boolean {
    return this.size === 0;
  }

  get bytes(): Uint8Array[] {
    return this.chunks;
  }
}

/**
 * Checkpoints under one directory: `chk-<id>/_metadata` (small: layout, operator state, checksums) and
 * `shared/data-<id>.bin` (key group bytes, referenced by later incremental checkpoints too). Every file is written
 * to a temporary name, fsynced, renamed and its directory fsynced, so a crash at any instant leaves either the new
 * checkpoint complete or no trace of it, and the previous one intact. Savepoints are self-contained directories.
 */
export class FileCheckpointStorage {
  /**
   * The shared data files each checkpoint references, by id: known for those this storage wrote, read once for the
   * others from the list at the head of their metadata, which has a checksum of its own. A checkpoint's metadata
   * never changes once written, and decoding it again after every checkpoint (buffered records included) only to
   * list its files cost a sixth of the job's thread.
   */
  private readonly referencedFiles = new Map<number, readonly string[]>();

  constructor(readonly directory: string) {}

  /** The highest checkpoint id present (complete or not), so a restarted job never reuses an id. */
  highestCheckpointId(): number {
    if (!existsSync(this.directory)) return 0;
    let max = 0;
    for (const entry of readdirSync(this.directory)) {
      const m = CHECKPOINT_DIR.exec(entry);
      if (m !== null) max = Math.max(max, Number(m[1]));
    }
    return max;
  }

  /** A data file builder for checkpoint `id` (paths relative to its metadata directory). */
  dataFileFor(id: number): DataFileBuilder {
    return new DataFileBuilder(`../shared/data-${id}.bin`);
  }

  /** Writes checkpoint `metadata.checkpointId` durably. */
  async writeCheckpoint(
    metadata: Omit<CheckpointMetadata, 'dataFiles'>,
    data: DataFileBuilder,
    inherited: CheckpointMetadata['dataFiles'],
  ): Promise<WrittenSnapshot> {
    const dir = join(this.directory, `chk-${metadata.checkpointId}`);
    await mkdir(join(this.directory, 'shared'), { recursive: true });
    // Stryker disable next-line ObjectLiteral: chk-N is numbered above every chk-* directory here, and its parent was just made
    await mkdir(dir, { recursive: true });
    const written = await writeSnapshotDirectory(dir, metadata, data, inherited);
    this.referencedFiles.set(metadata.checkpointId, dataFileNames(written.dataFiles));
    return written;
  }

  /** Deletes all but the newest `retained` complete checkpoints and the data files none of them references. */
  async retain(retained: number): Promise<void> {
    const ids = (await readdir(this.directory))
      .map((e) => CHECKPOINT_DIR.exec(e))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => Number(m[1]))
      .sort((a, b) => b - a);
    const keep: number[] = [];
    for (const id of ids) {
      const complete = existsSync(join(this.directory, `chk-${id}`, METADATA));
      if (complete && keep.length < retained) keep.push(id);
      else {
        await rm(join(this.directory, `chk-${id}`), { recursive: true, force: true });
        this.referencedFiles.delete(id);
      }
    }
    const referenced = new Set<string>();
    for (const id of keep) {
      for (const file of await this.filesReferencedBy(id)) referenced.add(file);
    }
    const shared = join(this.directory, 'shared');
    if (!existsSync(shared)) return;
    for (const file of await readdir(shared)) {
      if (!referenced.has(file)) await rm(join(shared, file), { force: true });
    }
  }

  private async filesReferencedBy(id: number): Promise<readonly string[]> {
    const known = this.referencedFiles.get(id);
    if (known !== undefined) return known;
    let files: readonly string[];
    try {
      files = dataFileNames(await readMetadataDataFiles(join(this.directory, `chk-${id}`, METADATA)));
    } catch (error) {
      // Anything else (a read that failed) leaves its files alone: only a checkpoint known to be unusable is
      // known to need none of them.
      if (!(error instanceof CorruptCheckpointError)) throw error;
      // A corrupt checkpoint references nothing we must keep (and is not remembered: it may be rewritten).
      // Stryker disable next-line ArrayDeclaration: the names are matched against data files, and no file has this one
      return [];
    }
    this.referencedFiles.set(id, files);
    return files;
  }
}

/** The names, inside `shared/`, of the data files a checkpoint's metadata lists. */
function dataFileNames(dataFiles: CheckpointMetadata['dataFiles']): readonly string[] {
  return Object.keys(dataFiles).map((file) => basename(file));
}

/** Where a checkpoint was written and the data files (with checksums) its metadata lists. */
export interface WrittenSnapshot {
  readonly path: string;
  readonly dataFiles: CheckpointMetadata['dataFiles'];
}

/** Writes `_metadata` (and the data file, if any) into `dir`, atomically. */
export async function writeSnapshotDirectory(
  dir: string,
  metadata: Omit<CheckpointMetadata, 'dataFiles'>,
  data: DataFileBuilder,
  inherited: CheckpointMetadata['dataFiles'],
): Promise<WrittenSnapshot> {
  const dataFiles: CheckpointMetadata['dataFiles'] = { ...inherited };
  if (!data.isEmpty) {
    const path = resolve(dir, data.relativePath);
    const hash = createHash('sha256');
    let size = 0;
    for (const chunk of data.bytes) {
      hash.update(chunk);
      size += chunk.byteLength;
    }
    await writeDurably(path, data.bytes);
    dataFiles[data.relativePath] = { sha256: hash.digest('hex'), size };
  }
  await writeDurably(join(dir, METADATA), [encodeMetadata({ ...metadata, dataFiles })]);
  return { path: dir, dataFiles };
}

/** Files up to this size are written synchronously: a few milliseconds, where an awaited write costs turns. */
const SYNC_WRITE_BYTES = 4 * 1024 * 1024;

/**
 * temp file → write → fsync → rename → fsync the directory. Every awaited step takes a turn of the event loop,
 * and while sources run a turn lasts a whole source batch: a checkpoint written step by step (once chunk by chunk,
 * one per key group) completed hundreds of batches after its barriers. So a small file is written synchronously,
 * within the turn its checkpoint was acknowledged in, and a large one awaits only what grows with its size: one
 * gathered write of every chunk, and the file's fsync.
 */
async function writeDurably(path: string, chunks: Uint8Array[]): Promise<void> {
  const tmp = `${path}.tmp-${process.pid}`;
  let size = 0;
  for (const chunk of chunks) size += chunk.byteLength;
  if (size <= SYNC_WRITE_BYTES) {
    const fd = openSync(tmp, 'w');
    try {
      for (const chunk of chunks) writeAllSync(fd, chunk);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } else {
    const handle = await open(tmp, 'w');
    try {
      await handle.writev(chunks);
      await handle.sync();
    } finally {
      await handle.close();
    }
  }
  renameSync(tmp, path);
  const dir = openSync(dirname(path), 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}

/** writeSync until every byte is written (it may write less than asked). */
function writeAllSync(fd: number, chunk: Uint8Array): void {
  for (let at = 0; at < chunk.byteLength;) at += writeSync(fd, chunk, at, chunk.byteLength - at);
}

/** A loaded checkpoint: the snapshot to restore and the metadata it came from. */
export interface LoadedCheckpoint {
  readonly path: string;
  readonly metadata: CheckpointMetadata;
  readonly snapshot: CheckpointedJobSnapshot;
}

/**
 * Loads one checkpoint or savepoint directory (or its `_metadata` file), verifying the metadata checksum and the
 * SHA-256 of every data file it references. Throws CorruptCheckpointError when anything does not match.
 */
export function loadSnapshotDirectory(path: string): LoadedCheckpoint {
  const dir = basename(path) === METADATA ? dirname(path) : path;
  const metaPath = join(dir, METADATA);
  if (!existsSync(metaPath))
    throw new CorruptCheckpointError(dir, 'no _metadata file (incomplete checkpoint)');
  const metadata = decodeMetadata(readFileSync(metaPath), metaPath);
  const files = new Map<string, Buffer>();
  for (const [file, { sha256, size }] of Object.entries(metadata.dataFiles)) {
    const full = resolve(dir, file);
    if (!existsSync(full)) throw new CorruptCheckpointError(dir, `data file ${file} is missing`);
    const bytes = readFileSync(full);
    if (bytes.length !== size)
      throw new CorruptCheckpointError(dir, `data file ${file} is ${bytes.length} bytes, expected ${size}`);
    if (createHash('sha256').update(bytes).digest('hex') !== sha256) {
      throw new CorruptCheckpointError(dir, `data file ${file} fails its checksum`);
    }
    files.set(file, bytes);
  }
  const read = (ref: BlobRef): KeyGroupSnapshot => {
    const bytes = files.get(ref.file);
    if (bytes === undefined)
      throw new CorruptCheckpointError(dir, `key group ${ref.keyGroup} points to unlisted file ${ref.file}`);
    return { keyGroup: ref.keyGroup, bytes: bytes.subarray(ref.offset, ref.offset + ref.length) };
  };
  const operators: Record<string, CheckpointedOperatorSnapshot> = {};
  for (const [uid, op] of Object.entries(metadata.operators)) {
    operators[uid] = {
      parallelism: op.parallelism,
      keyedState: op.keyedState.map(read),
      timers: op.timers.map(read),
      operatorState: op.operatorState,
      finished: op.finished,
    };
  }
  return {
    path: dir,
    metadata,
    snapshot: { version: 1, checkpointId: metadata.checkpointId, kind: metadata.kind, operators },
  };
}

/**
 * Loads the newest usable checkpoint under a checkpoint storage directory. A checkpoint that is incomplete,
 * truncated or fails a checksum is skipped with a log line, and the next older one is tried.
 *
 * @example
 * const latest = loadLatestCheckpoint('/var/lib/weir/checkpoints');
 * await env.execute('job', latest ? { restoreFrom: latest.snapshot } : {});
 */
export function loadLatestCheckpoint(
  directory: string,
  logger: Logger = defaultLogger(),
): LoadedCheckpoint | undefined {
  if (!existsSync(directory)) return undefined;
  const ids = readdirSync(directory)
    .map((e) => CHECKPOINT_DIR.exec(e))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => Number(m[1]))
    .sort((a, b) => b - a);
  for (const id of ids) {
    const dir = join(directory, `chk-${id}`);
    try {
      return loadSnapshotDirectory(dir);
    } catch (error) {
      if (!(error instanceof CorruptCheckpointError)) throw error;
      logger.warn(
        { checkpoint: dir },
        `checkpoint chk-${id} is unusable (${error.message.slice(error.path.length + 2)}); falling back to an earlier checkpoint`,
      );
    }
  }
  return undefined;
}

/**
 * Loads a savepoint or a retained checkpoint: a savepoint directory, a `chk-<id>` directory, a `_metadata` file,
 * or a checkpoint storage directory (its newest usable checkpoint).
 *
 * @example
 * await env.execute('job', { restoreFrom: loadSavepoint('/savepoints/savepoint-12-ab12cd') });
 */
export function loadSavepoint(path: string, logger?: Logger): CheckpointedJobSnapshot {
  const isStorage = existsSync(path) && statSync(path).isDirectory() && !existsSync(join(path, METADATA));
  if (isStorage) {
    const latest = loadLatestCheckpoint(path, logger);
    if (latest === undefined)
      throw new CorruptCheckpointError(path, 'no usable checkpoint or savepoint here');
    return latest.snapshot;
  }
  return loadSnapshotDirectory(path).snapshot;
}
