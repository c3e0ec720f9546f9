// TaskLocalStore: a task's state kept on local disk between runs of its process, with the changelog offsets it reflects.
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { ConfigurationError } from '../../core/errors.ts';
import type {
  KeptBytes,
  KeptKeyedStateBackend,
  KeyedBackendContext,
  LocalStores,
} from '../../state/state-backend.ts';
import type { KeyGroupSnapshot } from '../../state/keyed-state-backend.ts';
import { sorted, type PartitionContents } from './task-changelog.ts';

/** The checkpoint file's format version. */
const CHECKPOINT_VERSION = 1;
/** The name of a task's checkpoint file, in its directory. */
export const CHECKPOINT_FILE = '.checkpoint';
/** A message key's kinds, as the changelog writes them (task-changelog.ts). */
const TIMERS = 1;
const INPUT = 2;

/** The directory of a job's kept task stores under a backend's root. */
export function jobStoreDirectory(root: string, jobId: string): string {
  return join(root, 'cluster', jobId);
}

/** What a task's checkpoint file says: the offsets to read its changelog partitions from, or why it is unusable. */
export type CheckpointRead =
  | { readonly offsets: Readonly<Record<string, number>>; readonly rejected?: undefined }
  | { readonly offsets?: undefined; readonly rejected: string };

/**
 * Reads a checkpoint file: `{"version":1,"offsets":{"<changelog topic>":<next offset>,...}}`, where each offset is
 * the first changelog message the stores beside it do not reflect. A file that is missing, not JSON, of another
 * version or with an offset that is not a non-negative integer is rejected, with the reason.
 */
export function readCheckpoint(path: string): CheckpointRead {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { rejected: 'there is none' };
    return { rejected: `it cannot be read (${(error as Error).message})` };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { rejected: 'it is not JSON' };
  }
  const { version, offsets } = (parsed ?? {}) as { version?: unknown; offsets?: unknown };
  if (version !== CHECKPOINT_VERSION)
    return { rejected: `its version is ${String(version)}, not ${CHECKPOINT_VERSION}` };
  if (typeof offsets !== 'object' || offsets === null || Array.isArray(offsets))
    return { rejected: 'it holds no offsets' };
  for (const [topic, offset] of Object.entries(offsets))
    if (!Number.isSafeInteger(offset) || (offset as number) < 0)
      return { rejected: `its offset of ${topic} is ${JSON.stringify(offset)}` };
  return { offsets: offsets as Record<string, number> };
}

/** Writes a checkpoint file aside and renames it into place: a reader finds the old file or the new one, whole. */
export function writeCheckpoint(path: string, offsets: Readonly<Record<string, number>>): void {
  const aside = `${path}.tmp`;
  writeFileSync(aside, JSON.stringify({ version: CHECKPOINT_VERSION, offsets }));
  renameSync(aside, path);
}

/**
 * One task's local store: a kept database per keyed operator (`<directory>/<uid>`), the timers and input state the
 * task last wrote to its changelog (`<directory>/changelog`: the backends keep keyed state only), and the
 * checkpoint file (`<directory>/.checkpoint`) naming the changelog offsets all of it reflects.
 *
 * The invariant, for exactly once: the checkpoint file exists only while the stores hold exactly the state of the
 * committed changelog below its offsets. The first write to the disk after it was written (a write-back of the
 * backend's cache, a timer kept, a restore) removes it, before the write; the task writes it again after a commit
 * whose changelog writes reflect the disk (no write since the commit's snapshot). A process killed between a write
 * and the commit that covers it therefore leaves no checkpoint, and the next run restores in full. Between a
 * commit and the next write to the disk, which for state that fits in the backend's cache is the next commit's
 * snapshot, a crash keeps the checkpoint: the next run reads only the changelog after it.
 */
export class TaskLocalStore {
  private readonly checkpointPath: string;
  /** Whether a checkpoint file is on disk (so the next write must remove it). */
  private checkpointed: boolean;
  private bytes: KeptBytes | undefined = undefined;
  private readonly backends: KeptKeyedStateBackend[] = [];
  /** Writes to the disk so far: a commit checkpoints only if none came after its snapshot. */
  writes = 0;
  /** The offsets the checkpoint file names, or would name. */
  private offsets: Record<string, number> = {};

  constructor(
    private readonly stores: LocalStores,
    /** `<root>/cluster/<job id>/<task id>`. */
    readonly directory: string,
  ) {
    this.checkpointPath = join(directory, CHECKPOINT_FILE);
    this.checkpointed = existsSync(this.checkpointPath);
  }

  /** The checkpoint file, as {@link readCheckpoint} reads it. */
  readCheckpoint(): CheckpointRead {
    return readCheckpoint(this.checkpointPath);
  }

  /**
   * Opens the store's kept bytes; `fresh` empties the directory first (a restore from the changelog's start, which
   * must not meet stores that hold something else).
   */
  open(fresh: boolean): void {
    if (fresh) {
      this.invalidate();
      rmSync(this.directory, { recursive: true, force: true });
    }
    mkdirSync(this.directory, { recursive: true });
    this.bytes = this.stores.openBytes(join(this.directory, 'changelog'), {
      fresh: false,
      beforeWrite: () => this.invalidate(),
    });
  }

  /** Opens a keyed operator's kept database, without the key groups the changelog read replaces or removes. */
  keyedBackend(context: KeyedBackendContext, replaced: Iterable<number>): KeptKeyedStateBackend {
    const backend = this.stores.open(context, join(this.directory, safeName(context.uid)), {
      fresh: false,
      beforeWrite: () => this.invalidate(),
    });
    backend.removeKeyGroups(replaced);
    this.backends.push(backend);
    return backend;
  }

  /**
   * The operator's timers after the read: what the store kept, with each key group the read found replaced (or
   * removed, for a tombstone); the store keeps the result.
   */
  timers(uid: string, read: PartitionContents | undefined): KeyGroupSnapshot[] {
    const kept = new Map<number, Uint8Array | null>();
    for (const [key, value] of this.bytes!.entries()) {
      const parsed = parseKey(key);
      if (parsed.uid === uid && parsed.kind === TIMERS) kept.set(parsed.keyGroup, value);
    }
    for (const [keyGroup, value] of read?.timers ?? []) {
      kept.set(keyGroup, value);
      this.bytes!.put(storeKey(uid, TIMERS, keyGroup), value);
    }
    return sorted(kept);
  }

  /** The task's input state after the read: the one read, else the one kept (the store keeps the result). */
  inputState(uid: string | undefined, read: unknown): unknown {
    if (uid === undefined) return read;
    if (read !== undefined) {
      this.bytes!.put(storeKey(uid, INPUT, 0), new Uint8Array(serialize(read)));
      return read;
    }
    for (const [key, value] of this.bytes!.entries()) {
      const parsed = parseKey(key);
      if (parsed.uid === uid && parsed.kind === INPUT) return deserialize(value);
    }
    return undefined;
  }

  /** Keeps a timers or input message the task writes to its changelog (null: a tombstone). */
  keep(uid: string, key: Buffer, value: Uint8Array | null): void {
    this.bytes!.put(storeKey(uid, key[1]!, key.readUInt16BE(2)), value);
  }

  /**
   * Writes the checkpoint file naming `offsets` (each at least what it named before: a message the stores already
   * reflect may be read again, which replaces a key group with the value it holds), unless a backend still holds
   * restored entries outside its database.
   */
  checkpoint(offsets: Readonly<Record<string, number>>): boolean {
    let moved = false;
    for (const [topic, offset] of Object.entries(offsets)) {
      if (offset <= (this.offsets[topic] ?? -1)) continue;
      this.offsets[topic] = offset;
      moved = true;
    }
    if (this.checkpointed && !moved) return true;
    if (this.backends.some((b) => b.restorePending)) return false;
    writeCheckpoint(this.checkpointPath, this.offsets);
    this.checkpointed = true;
    return true;
  }

  /** Closes the kept bytes (the backends are closed, and kept, by their runtime). */
  close(): void {
    this.bytes?.close();
    this.bytes = undefined;
  }

  /** Before a write to the disk: the checkpoint no longer describes the stores. */
  private invalidate(): void {
    this.writes++;
    if (!this.checkpointed) return;
    this.checkpointed = false;
    try {
      unlinkSync(this.checkpointPath);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
}

/**
 * A process's hold on a job's kept stores under one root: two processes of a job must not share them (each would
 * take the other's stores for its own). The lock file holds the process id; one left by a process that no longer
 * runs is taken over.
 */
export class JobStoreLock {
  private constructor(private readonly path: string) {}

  static acquire(directory: string, jobId: string): JobStoreLock {
    mkdirSync(directory, { recursive: true });
    const path = join(directory, 'LOCK');
    for (let attempt = 0; ; attempt++) {
      try {
        const fd = openSync(path, 'wx');
        writeFileSync(fd, String(process.pid));
        closeSync(fd);
        return new JobStoreLock(path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw error;
      }
      const holder = Number(readFileSync(path, 'utf8'));
      if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && isAlive(holder))
        throw new ConfigurationError(
          `Cluster mode: the local stores of job '${jobId}' in ${directory} are in use by process ${holder}; ` +
            `give each process of a job on one machine a state backend path of its own`,
        );
      rmSync(path, { force: true });
    }
  }

  release(): void {
    rmSync(this.path, { force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A uid as a directory name. */
function safeName(uid: string): string {
  return uid.replace(/[^\w.-]/g, '_');
}

/** The kept bytes' key of a message: kind and key group in 6 hex digits, then the operator's uid. */
function storeKey(uid: string, kind: number, keyGroup: number): string {
  return `${kind.toString(16).padStart(2, '0')}${keyGroup.toString(16).padStart(4, '0')}${uid}`;
}

function parseKey(key: string): { kind: number; keyGroup: number; uid: string } {
  return {
    kind: parseInt(key.slice(0, 2), 16),
    keyGroup: parseInt(key.slice(2, 6), 16),
    uid: key.slice(6),
  };
}
