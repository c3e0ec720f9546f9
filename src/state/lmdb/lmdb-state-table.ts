// LmdbStateTable: the heap state handles' table, backed by LMDB with a bounded write-back cache of live values.
import type { AbstractHeapState, TtlValue } from '../heap/abstract-heap-state.ts';
import { StateTable } from '../heap/state-table.ts';
import { keyGroupFor, type NormalizedKey } from '../key-hash.ts';
import {
  declaredClassOf,
  isEmptySample,
  lostClassOf,
  structuredCloneSerializer,
} from '../../core/type-serializer.ts';
import { lostClassError } from '../lost-class-error.ts';
import {
  decodeEntryValue,
  encodeEntryKey,
  encodeEntryValue,
  entryValue,
  VALUE_NUMBER,
  VALUE_SERIALIZED,
  VALUE_STRING,
} from './lmdb-key-codec.ts';

/** What a table needs from its backend. */
export interface LmdbTableHost {
  readonly maxParallelism: number;
  /** Synchronous point read of an entry key. */
  read(key: Buffer): Buffer | undefined;
  /** Records that the current key's key group changed since the last snapshot. */
  markGroupDirty(keyGroup: number): void;
  getCurrentKeyGroup(): number;
  /** Counts cached entries, so the backend knows when to flush and evict. */
  cached(delta: number): void;
  /** The operator's name, for errors. */
  readonly operatorName: string | undefined;
}

/** Marks an entry known to be absent in LMDB (or deleted in the cache), so a miss costs one read, not many. */
const ABSENT: unknown = Symbol('absent');

/**
 * One namespace's entries as the heap state handles see them: a Map from normalised key to the stored value.
 * A miss reads LMDB once and caches the decoded value. Handles mutate stored objects in place (a list's push, a
 * map's set, an accumulator, a TTL refresh), so every object handed out is marked dirty; primitives cannot change
 * behind our back and are dirty only when set. Dirty entries reach LMDB on `flush`.
 */
export class NamespaceView<V> extends Map<NormalizedKey, V> {
  readonly dirty = new Set<NormalizedKey>();
  nsBytes: Uint8Array | undefined;

  constructor(
    private readonly table: LmdbStateTable<V>,
    readonly nsKey: string | number,
  ) {
    super();
  }

  override get(key: NormalizedKey): V | undefined {
    let stored = super.get(key);
    if (stored === undefined) {
      stored = this.table.load(this, key) as V;
      super.set(key, stored);
      this.table.host.cached(1);
    }
    if (stored === ABSENT) return undefined;
    if (typeof stored === 'object' && stored !== null) this.markDirty(key);
    return stored;
  }

  override set(key: NormalizedKey, value: V): this {
    if (!super.has(key)) this.table.host.cached(1);
    super.set(key, value);
    this.markDirty(key);
    return this;
  }

  override delete(key: NormalizedKey): boolean {
    if (!super.has(key)) this.table.host.cached(1);
    super.set(key, ABSENT as V);
    this.markDirty(key);
    return true;
  }

  private markDirty(key: NormalizedKey): void {
    this.dirty.add(key);
    this.table.host.markGroupDirty(this.table.host.getCurrentKeyGroup());
  }

  /** The cached value of a key, ABSENT included (for flush). */
  raw(key: NormalizedKey): unknown {
    return super.get(key);
  }
}

/**
 * Replaces a heap state's StateTable: the same three operations the handles use (`entriesOf`,
 * `entriesForWrite`, `remove`), answered from the cache or LMDB. Reusing the heap handles keeps the semantics of
 * every state kind (merging, TTL, defaults) identical between backends by construction.
 */
export class LmdbStateTable<V> extends StateTable<V> {
  private views = new Map<string | number, NamespaceView<V>>();
  state!: AbstractHeapState<any, any>;
  /** Whether one written value showed that the serializer keeps its classes (a state holds one type). */
  private classChecked = false;

  constructor(
    readonly host: LmdbTableHost,
    readonly stateId: number,
  ) {
    super();
  }

  override entriesOf(nsKey: string | number): Map<NormalizedKey, V> {
    let view = this.views.get(nsKey);
    if (view === undefined) this.views.set(nsKey, (view = new NamespaceView(this, nsKey)));
    return view;
  }

  override entriesForWrite(nsKey: string | number, namespace: unknown): Map<NormalizedKey, V> {
    const view = this.entriesOf(nsKey) as NamespaceView<V>;
    view.nsBytes ??= this.state.namespaceSerializer.serializer.serialize(namespace);
    return view;
  }

  override remove(nsKey: string | number, key: NormalizedKey): void {
    this.entriesOf(nsKey).delete(key);
  }

  override size(): number {
    throw new Error('LmdbStateTable.size: count through the backend (numStateEntries)');
  }

  /** Reads one entry from LMDB, decoded into what the heap handle stores (the value, or a TTL wrapper). */
  load(view: NamespaceView<V>, key: NormalizedKey): unknown {
    const kg = keyGroupFor(key, this.host.maxParallelism);
    const bytes = this.host.read(encodeEntryKey(kg, this.stateId, view.nsKey, key));
    if (bytes === undefined) return ABSENT;
    const { lastAccess, nsBytes, format, valueBytes } = decodeEntryValue(bytes);
    view.nsBytes ??= Uint8Array.from(nsBytes);
    const serializer = this.state.descriptor.serializer;
    return this.state.wrap(
      entryValue(format, valueBytes, (b) => serializer.deserialize(b)),
      lastAccess,
    );
  }

  /** Writes every dirty entry through `put` / `remove` (called inside one LMDB transaction). */
  flush(put: (key: Buffer, value: Buffer) => void, remove: (key: Buffer) => void): void {
    const state = this.state;
    const ttl = state.descriptor.ttl !== undefined;
    const serializer = state.descriptor.serializer;
    const direct = serializer === structuredCloneSerializer;
    for (const view of this.views.values()) {
      if (view.dirty.size === 0) continue;
      for (const key of view.dirty) {
        const dbKey = encodeEntryKey(
          keyGroupFor(key, this.host.maxParallelism),
          this.stateId,
          view.nsKey,
          key,
        );
        const stored = view.raw(key);
        if (stored === ABSENT || stored === undefined) {
          remove(dbKey);
          continue;
        }
        const lastAccess = ttl ? (stored as TtlValue<unknown>).lastAccess : -1;
        const value = state.unwrap(stored as V) as unknown;
        if (!this.classChecked) this.checkClass(value);
        const kind = typeof value;
        if (direct && kind === 'string')
          put(dbKey, encodeEntryValue(lastAccess, view.nsBytes!, VALUE_STRING, value as string));
        else if (direct && kind === 'number')
          put(dbKey, encodeEntryValue(lastAccess, view.nsBytes!, VALUE_NUMBER, value as number));
        else
          put(
            dbKey,
            encodeEntryValue(lastAccess, view.nsBytes!, VALUE_SERIALIZED, serializer.serialize(value)),
          );
      }
      view.dirty.clear();
    }
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
  }
}
