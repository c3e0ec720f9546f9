// LmdbStateTable: the heap state handles' table, backed by LMDB with a bounded write-back cache of live values.
import type { AbstractHeapState, TtlValue } from '../heap/abstract-heap-state.ts';
import { StateTable, type NamespaceEntries } from '../heap/state-table.ts';
import type { NormalizedKey } from '../key-hash.ts';
import {
  declaredClassOf,
  isEmptySample,
  lostClassOf,
  structuredCloneSerializer,
} from '../../core/type-serializer.ts';
import { lostClassError } from '../lost-class-error.ts';
import {
  decodeEntryValue,
  entryKeyLength,
  entryValue,
  entryValueLength,
  VALUE_NUMBER,
  VALUE_SERIALIZED,
  VALUE_STRING,
  writeEntryKey,
  writeEntryValue,
} from './lmdb-key-codec.ts';
import { ReusedBuffer } from './reused-buffer.ts';

/** What a table needs from its backend. */
export interface LmdbTableHost {
  readonly maxParallelism: number;
  /**
   * Synchronous point read of an entry key. The bytes returned are LMDB's shared read buffer: valid only until the
   * next read, so the caller decodes (copies) them at once.
   */
  read(key: Buffer): Buffer | undefined;
  /** Adds an entry key to the filter of written keys (before its first put; see WrittenKeyFilter). */
  addWritten(key: Buffer): void;
  /** Records that the current key's key group changed since the last snapshot. */
  markGroupDirty(keyGroup: number): void;
  getCurrentKeyGroup(): number;
  /** How many slices of key groups the cache is written back and dropped by (see LmdbKeyedStateBackend). */
  readonly cacheSlices: number;
  /** The slice a key group's cached entries belong to, in [0, cacheSlices). */
  cacheSlice(keyGroup: number): number;
  /** Counts one more cached entry in a slice, so the backend knows when to flush and which slice to evict. */
  cached(slice: number): void;
  /** The operator's name, for errors. */
  readonly operatorName: string | undefined;
}

/** Marks an entry known to be absent in LMDB (or deleted in the cache), so a miss costs one read, not many. */
const ABSENT: unknown = Symbol('absent');

/**
 * One cached entry: the stored value (ABSENT included), its key group, whether LMDB lacks its last change, and
 * whether the filter of written keys already holds its key (read from LMDB, or put once): a write-back of a key the
 * filter holds skips adding it again, which would cost a probe of every layer. It also knows its key and view, so a
 * slice's list of entries is all the write-back and the eviction of that slice walk.
 */
class CachedEntry {
  constructor(
    public value: unknown,
    readonly keyGroup: number,
    public dirty: boolean,
    public filtered: boolean,
    readonly key: NormalizedKey,
    readonly view: NamespaceView<any>,
  ) {}
}

/**
 * One namespace's entries as the heap state handles see them: `get`, `set` and `delete` of a Map from normalised
 * key to the stored value (the only operations the handles use). A miss reads LMDB once and caches the decoded
 * value. Handles mutate stored objects in place (a list's push, a map's set, an accumulator, a TTL refresh), so
 * every object handed out is marked dirty; primitives cannot change behind our back and are dirty only when set.
 * Dirty entries reach LMDB on `flush`.
 *
 * Cost: the dirty flag and the key group live in the cached entry, so a record's read and write of one key cost
 * one Map lookup (the write finds the entry the read left in `last`) plus one insert on a miss; the write-back
 * walks the Map instead of looking every dirty key up again.
 */
export class NamespaceView<V> {
  readonly entries = new Map<NormalizedKey, CachedEntry>();
  nsBytes: Uint8Array | undefined;
  /** The entry of the key accessed last (a handle reads, then writes, the current key). */
  private lastKey: NormalizedKey | undefined = undefined;
  private last: CachedEntry | undefined = undefined;

  constructor(
    private readonly table: LmdbStateTable<V>,
    readonly nsKey: string | number,
  ) {}

  get(key: NormalizedKey): V | undefined {
    let entry = key === this.lastKey ? this.last : this.entries.get(key);
    if (entry === undefined) {
      const loaded = this.table.load(this, key);
      entry = new CachedEntry(
        loaded,
        this.table.host.getCurrentKeyGroup(),
        false,
        loaded !== ABSENT,
        key,
        this,
      );
      this.entries.set(key, entry);
      this.table.cache(entry);
    }
    this.lastKey = key;
    this.last = entry;
    const stored = entry.value;
    if (stored === ABSENT) return undefined;
    if (typeof stored === 'object' && stored !== null) this.markDirty(entry);
    return stored as V;
  }

  set(key: NormalizedKey, value: V): this {
    this.write(key, value);
    return this;
  }

  delete(key: NormalizedKey): boolean {
    this.write(key, ABSENT);
    return true;
  }

  private write(key: NormalizedKey, value: unknown): void {
    let entry = key === this.lastKey ? this.last : this.entries.get(key);
    if (entry === undefined) {
      entry = new CachedEntry(value, this.table.host.getCurrentKeyGroup(), false, false, key, this);
      this.entries.set(key, entry);
      this.table.cache(entry);
      this.lastKey = key;
      this.last = entry;
    } else entry.value = value;
    this.markDirty(entry);
  }

  /** Handles only ever pass the current key, so an entry's key group is the one current when it was cached. */
  private markDirty(entry: CachedEntry): void {
    entry.dirty = true;
    this.table.host.markGroupDirty(entry.keyGroup);
  }

  /** Forgets the entry accessed last (its slice was dropped, or may have been). */
  forgetLast(): void {
    this.lastKey = undefined;
    this.last = undefined;
  }
}

/**
 * Replaces a heap state's StateTable: the same three operations the handles use (`entriesOf`,
 * `entriesForWrite`, `remove`), answered from the cache or LMDB. Reusing the heap handles keeps the semantics of
 * every state kind (merging, TTL, defaults) identical between backends by construction.
 */
export class LmdbStateTable<V> extends StateTable<V> {
  private views = new Map<string | number, NamespaceView<V>>();
  /** The view looked up last (plain keyed state has one namespace, so this is nearly always a hit). */
  private lastNsKey: string | number | undefined = undefined;
  private lastView: NamespaceView<V> | undefined = undefined;
  state!: AbstractHeapState<any, any>;
  /** Whether one written value showed that the serializer keeps its classes (a state holds one type). */
  private classChecked = false;
  /** Write-back counts per key group (reused by every flush to order the puts). */
  private groupCounts: Uint32Array | undefined = undefined;
  /** Every cached entry, by slice of key groups (see LmdbKeyedStateBackend's cacheSlices). */
  private slices: CachedEntry[][];

  constructor(
    readonly host: LmdbTableHost,
    readonly stateId: number,
    /** Where keys are encoded for reads and writes (shared by the backend's tables: one runs at a time). */
    private readonly keyBuffer: ReusedBuffer = new ReusedBuffer(256),
    private readonly valueBuffer: ReusedBuffer = new ReusedBuffer(256),
  ) {
    super();
    this.slices = Array.from({ length: host.cacheSlices }, () => []);
  }

  /** Counts a new cached entry in its slice. */
  cache(entry: CachedEntry): void {
    const slice = this.host.cacheSlice(entry.keyGroup);
    this.slices[slice]!.push(entry);
    this.host.cached(slice);
  }

  /**
   * Always the namespace serializer's key, never a hash ({@link StateTable.keyOf}): entry keys in LMDB hold it, so
   * what is written stays what earlier versions wrote and read.
   */
  override keyOf(namespace: unknown): string | number {
    return this.state.namespaceSerializer.key(namespace);
  }

  override entriesOf(nsKey: string | number): NamespaceEntries<V> {
    // The handles call only get, set and delete on what this returns (see NamespaceView).
    return this.view(nsKey) as unknown as NamespaceEntries<V>;
  }

  override entriesForWrite(nsKey: string | number, namespace: unknown): NamespaceEntries<V> {
    const view = this.view(nsKey);
    view.nsBytes ??= this.state.namespaceSerializer.serializer.serialize(namespace);
    return view as unknown as NamespaceEntries<V>;
  }

  override remove(nsKey: string | number, key: NormalizedKey): void {
    this.view(nsKey).delete(key);
  }

  private view(nsKey: string | number): NamespaceView<V> {
    if (nsKey === this.lastNsKey) return this.lastView!;
    let view = this.views.get(nsKey);
    if (view === undefined) this.views.set(nsKey, (view = new NamespaceView(this, nsKey)));
    this.lastNsKey = nsKey;
    this.lastView = view;
    return view;
  }

  override size(): number {
    throw new Error('LmdbStateTable.size: count through the backend (numStateEntries)');
  }

  /**
   * Reads one entry of the current key from LMDB, decoded into what the heap handle stores (the value, or a TTL
   * wrapper). The miss path: the key is encoded into the reused buffer, LMDB's bytes are decoded in place.
   */
  load(view: NamespaceView<V>, key: NormalizedKey): unknown {
    const host = this.host;
    const length = entryKeyLength(view.nsKey, key);
    writeEntryKey(this.keyBuffer.reserve(length), host.getCurrentKeyGroup(), this.stateId, view.nsKey, key);
    const bytes = host.read(this.keyBuffer.view(length));
    if (bytes === undefined) return ABSENT;
    const { lastAccess, nsBytes, format, valueBytes } = decodeEntryValue(bytes);
    view.nsBytes ??= Uint8Array.from(nsBytes);
    const serializer = this.state.descriptor.serializer;
    // Deserializers may keep views of their input (v8.deserialize returns typed arrays over it), and LMDB reuses
    // these bytes at the next read: serialized values are decoded from their own copy.
    return this.state.wrap(
      entryValue(format, valueBytes, (b) => serializer.deserialize(Buffer.from(b))),
      lastAccess,
    );
  }

  /**
   * Writes the dirty entries of slices `from` to `to - 1` (all by default) through `put` / `remove` (called inside
   * one LMDB transaction), in key group order: keys are ordered by key group first, so consecutive puts land in
   * neighbouring pages instead of anywhere in the tree. A counting sort over the key groups costs O(entries + max
   * parallelism). The key and value handed to `put` are views of reused buffers, valid until the next call (LMDB
   * copies them during the call).
   */
  flush(
    put: (key: Buffer, value: Buffer) => void,
    remove: (key: Buffer) => void,
    from = 0,
    to = this.slices.length,
  ): void {
    const maxParallelism = this.host.maxParallelism;
    const counts = (this.groupCounts ??= new Uint32Array(maxParallelism + 1));
    counts.fill(0);
    let total = 0;
    for (let s = from; s < to; s++)
      for (const entry of this.slices[s]!)
        if (entry.dirty) {
          counts[entry.keyGroup + 1]!++;
          total++;
        }
    if (total === 0) return;
    for (let kg = 1; kg <= maxParallelism; kg++) counts[kg]! += counts[kg - 1]!;
    // Stryker disable next-line ArrayDeclaration: the length only presizes the array
    const entries: CachedEntry[] = new Array(total);
    for (let s = from; s < to; s++)
      for (const entry of this.slices[s]!) if (entry.dirty) entries[counts[entry.keyGroup]!++] = entry;
    const state = this.state;
    const ttl = state.descriptor.ttl !== undefined;
    const serializer = state.descriptor.serializer;
    const direct = serializer === structuredCloneSerializer;
    const keyBuffer = this.keyBuffer;
    const valueBuffer = this.valueBuffer;
    for (let i = 0; i < total; i++) {
      const entry = entries[i]!;
      const key = entry.key;
      const view = entry.view;
      const keyLength = entryKeyLength(view.nsKey, key);
      writeEntryKey(keyBuffer.reserve(keyLength), entry.keyGroup, this.stateId, view.nsKey, key);
      const dbKey = keyBuffer.view(keyLength);
      const stored = entry.value;
      if (stored === ABSENT || stored === undefined) {
        remove(dbKey);
        continue;
      }
      if (!entry.filtered) {
        this.host.addWritten(dbKey);
        entry.filtered = true;
      }
      const lastAccess = ttl ? (stored as TtlValue<unknown>).lastAccess : -1;
      const value = state.unwrap(stored as V) as unknown;
      if (!this.classChecked) this.checkClass(value);
      const kind = typeof value;
      let format: number;
      let bytes: Uint8Array | string | number;
      if (direct && kind === 'string') {
        format = VALUE_STRING;
        bytes = value as string;
      } else if (direct && kind === 'number') {
        format = VALUE_NUMBER;
        bytes = value as number;
      } else {
        format = VALUE_SERIALIZED;
        bytes = serializer.serialize(value);
      }
      const nsBytes = view.nsBytes!;
      const valueLength = entryValueLength(nsBytes, format, bytes);
      writeEntryValue(valueBuffer.reserve(valueLength), lastAccess, nsBytes, format, bytes);
      put(dbKey, valueBuffer.view(valueLength));
    }
    // Clean only once every entry is written: a put that throws leaves them all dirty, as the transaction aborts.
    for (let i = 0; i < total; i++) entries[i]!.dirty = false;
  }

  /** Fails before class instances would be written as plain objects (see lostClassOf). */
  private checkClass(value: unknown): void {
    const serializer = this.state.descriptor.serializer;
    const declared = declaredClassOf(serializer);
    if (serializer !== structuredCloneSerializer && declared === undefined) {
      this.classChecked = true;
      return;
    }
    this.classChecked = !isEmptySample(value);
    const lost = lostClassOf(value, declared);
    if (lost !== undefined)
      throw lostClassError(this.state.descriptor.name, this.host.operatorName ?? 'operator', lost);
  }

  /** Drops every cached value (after a flush): LMDB is the truth again. */
  evict(): void {
    this.views.clear();
    for (let s = 0; s < this.slices.length; s++) this.slices[s] = [];
    this.lastNsKey = undefined;
    this.lastView = undefined;
  }

  /**
   * Drops one slice's cached values (after a flush of that slice): LMDB is the truth for its key groups again. A view
   * left without entries is dropped with them, as {@link evict} drops all.
   */
  evictSlice(slice: number): void {
    const entries = this.slices[slice]!;
    if (entries.length === 0) return;
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i]!;
      entry.view.entries.delete(entry.key);
    }
    this.slices[slice] = [];
    for (const [nsKey, view] of this.views) {
      view.forgetLast();
      if (view.entries.size === 0) this.views.delete(nsKey);
    }
    this.lastNsKey = undefined;
    this.lastView = undefined;
  }
}
