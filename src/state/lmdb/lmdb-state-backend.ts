// LmdbStateBackend: the environment-level choice of on-disk keyed state, creating one LMDB database per subtask.
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { open } from 'lmdb';
import type { KeyedBackendContext, LocalStores, StateBackend } from '../state-backend.ts';
import type { KeyedStateBackend } from '../keyed-state-backend.ts';
import { LmdbKeyedStateBackend } from './lmdb-keyed-state-backend.ts';

/** Options of the LMDB backend. */
export interface LmdbStateBackendOptions {
  /** A local directory for working state (not the checkpoint storage: its contents do not survive a restart). */
  readonly path: string;
  /** Live values cached per subtask before they are flushed and evicted (default 100,000). */
  readonly cacheEntries?: number;
}

let runCounter = 0;

/**
 * Keyed state in LMDB, for state larger than memory, with incremental checkpoints. Each run of a job gets its own
 * directory under `path` (`<pid>-<n>/<operator uid>-<subtask>`); directories of processes that no longer run are
 * removed when the next run starts, so a crash leaves nothing behind for long.
 *
 * @example
 * const env = StreamExecutionEnvironment.create();
 * env.setStateBackend(new LmdbStateBackend({ path: '/var/tmp/weir-state' }));
 */
export class LmdbStateBackend implements StateBackend {
  readonly name = 'lmdb';
  private runDir: string | undefined = undefined;

  constructor(private readonly options: LmdbStateBackendOptions) {}

  /**
   * Databases kept under `path` between runs (cluster mode's task stores), outside the run directories.
   * @internal
   */
  get localStores(): LocalStores {
    const options = this.options;
    return {
      root: options.path,
      open: (context, directory, { fresh, beforeWrite }) => {
        if (fresh) rmSync(directory, { recursive: true, force: true });
        mkdirSync(directory, { recursive: true });
        return new LmdbKeyedStateBackend({
          path: directory,
          maxParallelism: context.maxParallelism,
          keyGroupRange: context.keyGroupRange,
          clock: context.clock,
          operatorName: context.operatorName,
          keep: true,
          beforeWrite,
          ...(options.cacheEntries !== undefined ? { cacheEntries: options.cacheEntries } : {}),
        });
      },
      openBytes: (directory, { fresh, beforeWrite }) => {
        if (fresh) rmSync(directory, { recursive: true, force: true });
        mkdirSync(directory, { recursive: true });
        const root = open({ path: directory, noSync: true, compression: false });
        const db = root.openDB<Buffer, string>({ name: 'bytes', encoding: 'binary' });
        return {
          *entries() {
            for (const { key, value } of db.getRange({})) yield [key, new Uint8Array(value)] as const;
          },
          put(key, value) {
            beforeWrite();
            if (value === null) db.removeSync(key);
            else db.putSync(key, Buffer.from(value.buffer, value.byteOffset, value.byteLength));
          },
          close() {
            root.close();
          },
        };
      },
    };
  }

  /** @internal */
  createKeyedStateBackend(context: KeyedBackendContext): KeyedStateBackend {
    const dir = join(this.runDirectory(), `${context.uid.replace(/[^\w.-]/g, '_')}-${context.subtaskIndex}`);
    return new LmdbKeyedStateBackend({
      path: dir,
      maxParallelism: context.maxParallelism,
      keyGroupRange: context.keyGroupRange,
      clock: context.clock,
      operatorName: context.operatorName,
      ...(this.options.cacheEntries !== undefined ? { cacheEntries: this.options.cacheEntries } : {}),
    });
  }

  /**
   * Starts a new run directory (the runtime calls this per job attempt, so a restart never reuses stale files).
   * @internal
   */
  newRun(): void {
    this.runDir = undefined;
  }

  private runDirectory(): string {
    if (this.runDir !== undefined) return this.runDir;
    mkdirSync(this.options.path, { recursive: true });
    for (const entry of readdirSync(this.options.path)) {
      const pid = Number(entry.split('-')[0]);
      if (Number.isInteger(pid) && pid !== process.pid && !isAlive(pid)) {
        rmSync(join(this.options.path, entry), { recursive: true, force: true });
      }
    }
    this.runDir = join(this.options.path, `${process.pid}-${++runCounter}`);
    return this.runDir;
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
