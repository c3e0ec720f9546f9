// The LMDB keyed state backend: keyed state on disk (larger than memory), snapshotted incrementally by key group.
import { rmSync } from 'node:fs';
import { open, type Database, type RootDatabase } from 'lmdb';
import { IllegalStateError } from '../../core/errors.ts';
import type { IncrementalKeyGroupSnapshot, IncrementalSnapshotBackend } from '../incremental-snapshot.ts';
import type { AbstractHeapState } from '../heap/abstract-heap-state.ts';
import {
  columnNamespaces,
  decodeKeyGroup,
  encodeKeyGroup,
  StateColumnsBuilder,
  unpacked,
  type PendingColumns,
  type StateColumns,
} from '../key-group-format.ts';
import { KeyContext } from '../key-context.ts';
import { HeapAggregatingState } from '../heap/heap-aggregating-state.ts';
import { HeapListState } from '../heap/heap-list-state.ts';
import { HeapMapState } from '../heap/heap-map-state.ts';
import { HeapReducingState } from '../heap/heap-reducing-state.ts';
import { HeapValueState } from '../heap/heap-value-state.ts';
import type { InternalStateFor, KeyGroupSnapshot } from '../keyed-state-backend.ts';
import type { KeyGroupRange } from '../key-group-range.ts';
import { denormalizeKey, keyGroupFor, type NormalizedKey } from '../key-hash.ts';
import type { NamespaceSerializer } from '../namespace.ts';
import type { StateDescriptor } from '../../core/state-descriptor.ts';
import { structuredCloneSerializer } from '../../core/type-serializer.ts';
import {
  decodeEntryKey,
  decodeEntryValue,
  encodeEntryKey,
  encodeEntryValue,
  entryValue,
  keyGroupPrefix,
  VALUE_NUMBER,
  VALUE_SERIALIZED,
  VALUE_STRING,
} from './lmdb-key-codec.ts';
import {
  decodeRawKeyGroup,
  encodeRawKeyGroup,
  isRawKeyGroup,
  type RawEntry,
} from './lmdb-key-group-format.ts';
import { LmdbStateTable, type LmdbTableHost } from './lmdb-state-table.ts';
import { ReusedBuffer } from './reused-buffer.ts';
import { hashKeyBytes, WrittenKeyFilter } from './written-key-filter.ts';

/** Options of one subtask's LMDB backend. */
export interface LmdbKeyedStateBackendOptions {
  /** Directory of this subtask's working database (deleted on dispose: checkpoints are the durable copy). */
  readonly path: string;
  readonly maxParallelism: number;
  readonly keyGroupRange: KeyGroupRange;
  readonly clock: () => number;
  readonly operatorName?: string;
  /** Cached entries before a flush-and-evict (default 100,000): the memory bound of the backend. */
  readonly cacheEntries?: number;
  /**
   * Slices of the key group range the cache is written back and dropped by, one slice at a time (default: up to 16,
   * with at least 4,096 cached entries per slice; see {@link LmdbKeyedStateBackend}). At most the range's size.
   */
  readonly cacheSlices?: number;
  /**
   * Keeps the database: opened as it is found (not emptied first) and left on disk by `dispose`. Cluster mode keeps
   * a task's store between runs of its process, with a checkpoint of the changelog offsets it reflects.
   */
  readonly keep?: boolean;
  /** Called before each write into LMDB (not into the cache): a kept store's checkpoint is void from then on. */
  readonly beforeWrite?: () => void;
}

/** Slices of the key group range by default, at most (see LmdbKeyedStateBackend). */
const CACHE_SLICES = 16;
/**
 * Cached entries per slice by default, at least: a slice's write-back is one transaction, whose commit is a fixed cost
 * (a cache of 1,000 entries, flushed whole, already paid ~1.7 µs of it per record at 10,000 keys).
 */
const MIN_SLICE_ENTRIES = 4_096;

/**
 * Flink's RocksDB backend, on LMDB. State handles are the heap handles over an {@link LmdbStateTable}: reads hit a
 * write-back cache of live values, then LMDB (synchronously, ~0.3–0.6M reads/s); writes stay in the cache until
 * the cache exceeds its bound or a snapshot flushes it in one transaction (~0.5M writes/s). Once the keys outnumber
 * the cache, nearly every record pays that read and that write: the miss path encodes its key into a reused
 * buffer, decodes LMDB's bytes without copying them (or skips the read when a filter of the keys ever written has
 * never seen the key), and the write-back puts entries in key group order.
 *
 * The cache is written back and dropped by slices of the key group range, the slice holding the most entries first,
 * instead of all at once. A put's cost is mostly LMDB's work per page touched (each leaf page a write transaction
 * changes is copied, and written at the commit): keys are ordered by key group, so a slice is a contiguous part of
 * the tree, and writing back the fullest slice puts about twice the cache's average density of entries into each of
 * its pages. The rest of the cache stays, so it is nearly full at all times instead of half full on average. The
 * working database is not durable (no fsync): after a crash the job restores from its last checkpoint, as with
 * Flink's RocksDB.
 *
 * Snapshots are in the heap backend's format (so a savepoint moves between backends) and incremental: key groups
 * untouched since the last completed checkpoint are reported unchanged and the checkpoint references their
 * earlier bytes instead of copying them.
 */
export class LmdbKeyedStateBackend extends KeyContext implements IncrementalSnapshotBackend, LmdbTableHost {
  readonly keyGroupRange: KeyGroupRange;
  private readonly root: RootDatabase;
  private readonly db: Database<Buffer, Buffer>;
  /** A kept store's state names by id: its entries' keys hold the ids, which must mean the same names next run. */
  private readonly names: Database<string, number> | undefined;
  private readonly states = new Map<string, AbstractHeapState<any, any>>();
  private readonly stateIds = new Map<string, number>();
  private readonly stateNames: string[] = [];
  /** Restored heap-format entries without namespace lookup keys, waiting for their state to be registered. */
  private readonly pendingRestore = new Map<string, PendingColumns[]>();
  private cachedEntries = 0;
  readonly cacheSlices: number;
  /** Cached entries per slice of key groups. */
  private readonly sliceEntries: Uint32Array;
  /** Scratch bytes for the keys and values every table reads and writes (see ReusedBuffer). */
  private readonly keyBuffer = new ReusedBuffer(256);
  private readonly valueBuffer = new ReusedBuffer(256);
  private readonly cacheLimit: number;
  /** Key groups written since the last snapshot, by offset in the range. */
  private dirty: Uint8Array;
  /** Per snapshot not yet confirmed: the groups dirty before it and the groups it emitted. */
  private readonly inFlight = new Map<number, { dirty: Uint8Array; emitted: Set<number> }>();
  /** Groups holding state at the last confirmed snapshot; undefined until one is confirmed (then all are new). */
  private persisted: Set<number> | undefined = undefined;
  private disposed = false;
  /** Entry keys that may be in LMDB: a key it has never seen is not read (see WrittenKeyFilter). */
  private readonly written = new WrittenKeyFilter();

  constructor(private readonly options: LmdbKeyedStateBackendOptions) {
    super(options.maxParallelism, options.operatorName);
    this.keyGroupRange = options.keyGroupRange;
    this.cacheLimit = options.cacheEntries ?? 100_000;
    this.cacheSlices = Math.max(
      1,
      Math.min(
        options.cacheSlices ?? Math.min(CACHE_SLICES, Math.floor(this.cacheLimit / MIN_SLICE_ENTRIES)),
        this.keyGroupRange.size,
      ),
    );
    this.sliceEntries = new Uint32Array(this.cacheSlices);
    this.dirty = new Uint8Array(this.keyGroupRange.size);
    if (options.keep !== true) rmSync(options.path, { recursive: true, force: true });
    this.root = open({ path: options.path, noSync: true, noMemInit: true, compression: false });
    this.db = this.root.openDB({ name: 'state', keyEncoding: 'binary', encoding: 'binary' });
    // Ids are given in the order names are first met, which a later run need not repeat (a restore may name its
    // states in another order than the operator registers them): a kept store reads back the ids it gave.
    this.names =
      options.keep === true ? this.root.openDB({ name: 'state-ids', encoding: 'string' }) : undefined;
    if (this.names !== undefined)
      for (const { key, value } of this.names.getRange({})) {
        this.stateNames[key] = value;
        this.stateIds.set(value, key);
      }
    // A kept store's entries were written by an earlier run: the filter learns them before the first read.
    if (options.keep === true) for (const key of this.db.getKeys({})) this.addWritten(key);
  }

  /** Sets the current key; between records is where the write-back cache is flushed when it is over its bound. */
  override setCurrentKey(key: unknown): void {
    super.setCurrentKey(key);
    if (this.cachedEntries > this.cacheLimit) this.flushFullestSlice();
  }

  override setCurrentNormalizedKey(normalized: NormalizedKey, key: unknown): void {
    super.setCurrentNormalizedKey(normalized, key);
    if (this.cachedEntries > this.cacheLimit) this.flushFullestSlice();
  }

  now(): number {
    return this.options.clock();
  }

  read(key: Buffer): Buffer | undefined {
    // A key never written has no entry: the B-tree descent that would find nothing is skipped.
    if (!this.written.mightContain(hashKeyBytes(key, key.length))) return undefined;
    // Without a copy: the bytes are decoded before the next read (see LmdbTableHost.read).
    return this.db.getBinaryFast(key) as Buffer | undefined;
  }

  /** Adds an entry key to the filter of written keys; called before its entry is put, never after. */
  addWritten(key: Uint8Array): void {
    this.written.add(hashKeyBytes(key, key.length));
  }

  markGroupDirty(keyGroup: number): void {
    this.dirty[keyGroup - this.keyGroupRange.start] = 1;
  }

  /** Slices are contiguous runs of the range's key groups, as even as the range's size allows. */
  cacheSlice(keyGroup: number): number {
    return (((keyGroup - this.keyGroupRange.start) * this.cacheSlices) / this.keyGroupRange.size) | 0;
  }

  cached(slice: number): void {
    this.sliceEntries[slice]!++;
    this.cachedEntries++;
  }

  getOrCreateKeyedState<D extends StateDescriptor<any, any>, N>(
    descriptor: D,
    namespaceSerializer: NamespaceSerializer<N>,
  ): InternalStateFor<D, N> {
    const existing = this.states.get(descriptor.name);
    if (existing !== undefined) {
      if (existing.descriptor.kind !== descriptor.kind) {
        throw new IllegalStateError(
          `Operator '${this.options.operatorName ?? 'operator'}': state '${descriptor.name}' was registered as ${existing.descriptor.kind} state and is now asked for as ${descriptor.kind} state`,
        );
      }
      return existing as unknown as InternalStateFor<D, N>;
    }
    const kinds: Record<string, new (...args: any[]) => AbstractHeapState<any, any>> = {
      value: HeapValueState,
      list: HeapListState,
      map: HeapMapState,
      reducing: HeapReducingState,
      aggregating: HeapAggregatingState,
    };
    const Kind = kinds[descriptor.kind as string];
    if (Kind === undefined) throw new IllegalStateError(`Unknown state kind ${String(descriptor.kind)}`);
    const state = new Kind(this, descriptor as any, namespaceSerializer, undefined as N) as AbstractHeapState<
      N,
      any
    >;
    const table = new LmdbStateTable<any>(
      this,
      this.stateId(descriptor.name),
      this.keyBuffer,
      this.valueBuffer,
    );
    table.state = state;
    // The heap handles reach their entries only through `table`; swapping it is the whole adaptation.
    (state as { table: unknown }).table = table;
    this.states.set(descriptor.name, state);
    const pending = this.pendingRestore.get(descriptor.name);
    if (pending !== undefined) {
      this.pendingRestore.delete(descriptor.name);
      for (const { columns } of pending) this.write(descriptor.name, columns);
    }
    return state as unknown as InternalStateFor<D, N>;
  }

  numStateEntries(stateName?: string): number {
    this.flush(false);
    let n = 0;
    if (stateName === undefined) n = this.db.getCount();
    else {
      // One state's entries: a scan of the keys (a gauge reads this about once a second, never per record).
      const id = this.stateIds.get(stateName);
      for (const key of this.db.getKeys({})) if (decodeEntryKey(key).stateId === id) n++;
    }
    for (const [name, pending] of this.pendingRestore) {
      if (stateName === undefined || name === stateName) for (const p of pending) n += p.columns.keys.length;
    }
    return n;
  }

  *getKeys(stateName: string): Iterable<unknown> {
    // A registered state has an id; one only restored (not yet registered) lists no keys, as in the heap backend.
    if (!this.states.has(stateName)) return;
    const id = this.stateIds.get(stateName);
    this.flush(false);
    const seen = new Set<NormalizedKey>();
    for (const key of this.db.getKeys({})) {
      const decoded = decodeEntryKey(key);
      if (decoded.stateId !== id || seen.has(decoded.key)) continue;
      seen.add(decoded.key);
      yield denormalizeKey(decoded.key);
    }
  }

  /** A full snapshot in the heap backend's format: what savepoints hold, so they move between backends. */
  snapshot(): KeyGroupSnapshot[] {
    this.flush(false);
    const out: KeyGroupSnapshot[] = [];
    for (const kg of this.groupsWithState()) {
      const bytes = this.snapshotGroup(kg);
      if (bytes !== undefined) out.push({ keyGroup: kg, bytes });
    }
    return out;
  }

  snapshotIncremental(checkpointId: number): IncrementalKeyGroupSnapshot[] {
    this.flush(false);
    const changed = Uint8Array.from(this.dirty);
    for (const earlier of this.inFlight.values())
      for (let i = 0; i < changed.length; i++) changed[i]! |= earlier.dirty[i]!;
    const out: IncrementalKeyGroupSnapshot[] = [];
    const emitted = new Set<number>();
    for (const kg of this.groupsWithState()) {
      const persisted = this.persisted;
      if (persisted !== undefined && persisted.has(kg) && changed[kg - this.keyGroupRange.start] === 0) {
        out.push({ keyGroup: kg, bytes: undefined });
        emitted.add(kg);
        continue;
      }
      const bytes = this.snapshotRawGroup(kg);
      if (bytes === undefined) continue;
      out.push({ keyGroup: kg, bytes });
      emitted.add(kg);
    }
    this.inFlight.set(checkpointId, { dirty: this.dirty, emitted });
    this.dirty = new Uint8Array(this.keyGroupRange.size);
    return out;
  }

  notifyCheckpointComplete(checkpointId: number): void {
    const done = this.inFlight.get(checkpointId);
    if (done === undefined) return;
    this.persisted = done.emitted;
    for (const id of [...this.inFlight.keys()]) if (id <= checkpointId) this.inFlight.delete(id);
  }

  restore(snapshots: Iterable<KeyGroupSnapshot>): void {
    for (const { keyGroup, bytes } of snapshots) {
      if (!this.keyGroupRange.contains(keyGroup)) continue;
      this.markGroupDirty(keyGroup);
      if (isRawKeyGroup(bytes)) {
        this.restoreRaw(bytes);
        continue;
      }
      for (const columns of decodeKeyGroup(keyGroup, bytes)) {
        const name = columns.name;
        if (this.states.has(name) || columns.nsKeys !== undefined) this.write(name, columns);
        else {
          let pending = this.pendingRestore.get(name);
          if (pending === undefined) this.pendingRestore.set(name, (pending = []));
          pending.push({ keyGroup, columns });
        }
      }
    }
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.states.clear();
    this.pendingRestore.clear();
    this.root.close();
    if (this.options.keep !== true) rmSync(this.options.path, { recursive: true, force: true });
  }

  /**
   * Removes every entry of the given key groups from LMDB (and the cache): a kept store replaces a key group whole
   * when its changelog holds a newer value of it, or a tombstone.
   */
  removeKeyGroups(groups: Iterable<number>): void {
    this.flush(true);
    const db = this.db;
    for (const kg of groups) {
      const keys = [...db.getKeys({ start: keyGroupPrefix(kg), end: keyGroupPrefix(kg + 1) })];
      if (keys.length === 0) continue;
      this.options.beforeWrite?.();
      db.transactionSync(() => {
        for (const key of keys) db.removeSync(key);
      });
    }
  }

  /** Whether restored entries wait for their state to be registered (they are not in LMDB yet). */
  get restorePending(): boolean {
    return this.pendingRestore.size > 0;
  }

  /** Writes dirty cached entries in one transaction; with `evict`, also drops the cache (the memory bound). */
  flush(evict: boolean): void {
    this.writeBack(0, this.cacheSlices);
    if (evict) {
      for (const state of this.states.values()) (state.table as LmdbStateTable<any>).evict();
      this.cachedEntries = 0;
      this.sliceEntries.fill(0);
    }
  }

  /**
   * The memory bound: writes back and drops the slice with the most cached entries. With keys spread evenly, the
   * fullest slice holds about 2 / (slices + 1) of the cache, so the cache stays over (slices - 1) / (slices + 1)
   * full and each flush puts twice the average density of entries into the pages it touches.
   */
  private flushFullestSlice(): void {
    const counts = this.sliceEntries;
    let fullest = 0;
    for (let s = 1; s < counts.length; s++) if (counts[s]! > counts[fullest]!) fullest = s;
    this.writeBack(fullest, fullest + 1);
    for (const state of this.states.values()) (state.table as LmdbStateTable<any>).evictSlice(fullest);
    this.cachedEntries -= counts[fullest]!;
    counts[fullest] = 0;
  }

  /** Writes the dirty cached entries of slices `from` to `to - 1` in one transaction. */
  private writeBack(from: number, to: number): void {
    const db = this.db;
    const beforeWrite = this.options.beforeWrite;
    db.transactionSync(() => {
      for (const state of this.states.values()) {
        (state.table as LmdbStateTable<any>).flush(
          beforeWrite === undefined
            ? (k, v) => db.putSync(k, v)
            : (k, v) => {
                beforeWrite();
                db.putSync(k, v);
              },
          beforeWrite === undefined
            ? (k) => db.removeSync(k)
            : (k) => {
                beforeWrite();
                db.removeSync(k);
              },
          from,
          to,
        );
      }
    });
  }

  private stateId(name: string): number {
    let id = this.stateIds.get(name);
    if (id === undefined) {
      id = this.stateNames.length;
      if (id > 0xffff) throw new IllegalStateError('More than 65,536 states in one operator');
      this.stateNames.push(name);
      this.stateIds.set(name, id);
      this.names?.putSync(id, name);
    }
    return id;
  }

  /** Writes restored entries into LMDB; without their namespace lookup keys, the state must be registered. */
  private write(name: string, columns: StateColumns): void {
    const id = this.stateId(name);
    const state = this.states.get(name);
    const now = this.options.clock();
    // Raw values came from the default serializer; strings and numbers take the table's direct formats.
    const serializer = state?.descriptor.serializer ?? structuredCloneSerializer;
    const direct = serializer === structuredCloneSerializer;
    const nsSerializer = state?.namespaceSerializer.serializer ?? structuredCloneSerializer;
    let nsBytes: Uint8Array[];
    if (columns.namespaces !== undefined)
      nsBytes = columns.namespaces.map((ns) => nsSerializer.serialize(ns));
    else {
      const ends = columns.nsEnds!;
      // Stryker disable next-line ArrayDeclaration: the length only presizes the array
      nsBytes = new Array(ends.length);
      for (let i = 0; i < ends.length; i++) nsBytes[i] = unpacked(columns.nsBytes!, ends, i);
    }
    const nsKeys =
      columns.nsKeys ??
      columnNamespaces(columns, (b) => nsSerializer.deserialize(b)).map((ns) =>
        state!.namespaceSerializer.key(ns),
      );
    const { nsOf, keys, values, valueBytes, valueEnds, lastAccess } = columns;
    this.options.beforeWrite?.();
    this.db.transactionSync(() => {
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i]!;
        const n = nsOf[i]!;
        const stamp = lastAccess !== undefined ? lastAccess[i]! : -1;
        // An entry without a stamp starts its time-to-live now if its state has a TTL or is registered with one
        // later, as in the heap backend (a state without a TTL ignores the stamp).
        const access = stamp < 0 ? now : stamp;
        let encoded: Buffer;
        if (values === undefined)
          encoded = encodeEntryValue(
            access,
            nsBytes[n]!,
            VALUE_SERIALIZED,
            unpacked(valueBytes!, valueEnds!, i),
          );
        else {
          const value = values[i];
          if (direct && typeof value === 'string')
            encoded = encodeEntryValue(access, nsBytes[n]!, VALUE_STRING, value);
          else if (direct && typeof value === 'number')
            encoded = encodeEntryValue(access, nsBytes[n]!, VALUE_NUMBER, value);
          else encoded = encodeEntryValue(access, nsBytes[n]!, VALUE_SERIALIZED, serializer.serialize(value));
        }
        const entryKey = encodeEntryKey(keyGroupFor(key, this.maxParallelism), id, nsKeys[n]!, key);
        this.addWritten(entryKey);
        this.db.putSync(entryKey, encoded);
      }
    });
  }

  /** Key groups of this range that may hold state: every prefix present in LMDB, plus pending restores. */
  private groupsWithState(): number[] {
    const groups = new Set<number>();
    const { start, end } = this.keyGroupRange;
    for (let kg = start; kg <= end; kg++) {
      for (const _ of this.db.getKeys({ start: keyGroupPrefix(kg), end: keyGroupPrefix(kg + 1), limit: 1 }))
        groups.add(kg);
    }
    for (const pending of this.pendingRestore.values()) for (const p of pending) groups.add(p.keyGroup);
    return [...groups].sort((a, b) => a - b);
  }

  /**
   * A key group's LMDB entries copied raw (checkpoints). Expired TTL entries are copied too: they keep their last
   * access time and expire on first touch after a restore. While heap-format entries wait for their state to be
   * registered (they cannot be keyed in LMDB yet), the group falls back to the heap format.
   */
  private snapshotRawGroup(kg: number): Uint8Array | undefined {
    if (this.pendingRestore.size > 0) return this.snapshotGroup(kg);
    const entries: RawEntry[] = [];
    for (const { key, value } of this.db.getRange({
      start: keyGroupPrefix(kg),
      end: keyGroupPrefix(kg + 1),
    })) {
      entries.push({ key, value });
    }
    if (entries.length === 0) return undefined;
    return encodeRawKeyGroup(this.stateNames, entries);
  }

  /** Writes raw checkpoint entries back, re-mapping state ids by name. */
  private restoreRaw(bytes: Uint8Array): void {
    const { names, entries } = decodeRawKeyGroup(bytes);
    const ids = names.map((name) => this.stateId(name));
    this.options.beforeWrite?.();
    this.db.transactionSync(() => {
      for (const { key, value } of entries) {
        const copy = Buffer.from(key);
        copy.writeUInt16BE(ids[copy.readUInt16BE(2)]!, 2);
        this.addWritten(copy);
        this.db.putSync(copy, Buffer.from(value));
      }
    });
  }

  /**
   * One key group's live entries in the heap backend's format (savepoints; see `StateColumns`). Values of states
   * registered with the default serializer go raw; others keep their serializer bytes (the direct string and
   * number formats are only ever used under the default serializer, so they are re-encoded with it).
   */
  private snapshotGroup(kg: number): Uint8Array | undefined {
    const now = this.options.clock();
    const builders = new Map<number, StateColumnsBuilder>();
    let builder: StateColumnsBuilder | undefined;
    let builderId = -1;
    // Stryker disable next-line BooleanLiteral: set at the first entry, before it is read
    let rawValues = false;
    let ttlMs = 0;
    let lastNsKey: string | number | undefined = undefined;
    let nsToken: object = {};
    for (const { key, value } of this.db.getRange({
      start: keyGroupPrefix(kg),
      end: keyGroupPrefix(kg + 1),
    })) {
      const k = decodeEntryKey(key);
      const v = decodeEntryValue(value);
      if (k.stateId !== builderId) {
        builderId = k.stateId;
        const name = this.stateNames[k.stateId]!;
        const state = this.states.get(name);
        ttlMs = state?.descriptor.ttl?.ttlMs ?? 0;
        rawValues = state?.descriptor.serializer === structuredCloneSerializer;
        builder = builders.get(k.stateId);
        if (builder === undefined) {
          builder = new StateColumnsBuilder(name, state?.descriptor.kind ?? 'pending', false, rawValues);
          builders.set(k.stateId, builder);
        }
        lastNsKey = undefined;
      }
      if (ttlMs > 0 && now - v.lastAccess >= ttlMs) continue;
      // Entries are ordered by namespace within a state, so one namespace's entries arrive together.
      if (k.nsKey !== lastNsKey) {
        lastNsKey = k.nsKey;
        nsToken = {};
      }
      const stored = rawValues
        ? entryValue(v.format, v.valueBytes, (b) => structuredCloneSerializer.deserialize(b))
        : v.format === VALUE_SERIALIZED
          ? v.valueBytes
          : structuredCloneSerializer.serialize(entryValue(v.format, v.valueBytes, () => undefined));
      builder!.add(nsToken, v.nsBytes, k.nsKey, k.key, stored, v.lastAccess);
    }
    const out: StateColumns[] = [];
    for (const b of builders.values()) if (b.size > 0) out.push(b.build());
    for (const pending of this.pendingRestore.values())
      for (const p of pending) if (p.keyGroup === kg) out.push(p.columns);
    if (out.length === 0) return undefined;
    return encodeKeyGroup(out);
  }
}
