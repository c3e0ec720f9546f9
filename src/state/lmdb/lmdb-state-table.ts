// LmdbStateTable: the heap state handles' table, backed by LMDB with a bounded write-back cache of live values.
import type { AbstractHeapState, TtlValue } from '../heap/abstract-heap-state.ts';
import { StateTable } from '../heap/state-table.ts';
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
  /** Keys changed since the last flush, each with its key group (the current key's, computed once per record). */
  readonly dirty = new Map<NormalizedKey, number>();
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

  /** Handles only ever pass the current key, so its key group is the backend's current one. */
  private markDirty(key: NormalizedKey): void {
    const host = this.table.host;
    const keyGroup = host.getCurrentKeyGroup();
    this.dirty.set(key, keyGroup);
    host.markGroupDirty(keyGroup);
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
  /** The view looked up last (plain keyed state has one namespace, so this is nearly always a hit). */
  private lastNsKey: string | number | undefined = undefined;
  private lastView: NamespaceView<V> | undefined = undefined;
  state!: AbstractHeapState<any, any>;
  /** Whether one written value showed that the serializer keeps its classes (a state holds one type). */
  private classChecked = false;
  /** Write-back counts per key group (reused by every flush to order the puts). */
  private groupCounts: Uint32Array | undefined = undefined;

  constructor(
    readonly host: LmdbTableHost,
    readonly stateId: number,
    /** Where keys are encoded for reads and writes (shared by the backend's tables: one runs at a time). */
    private readonly keyBuffer: ReusedBuffer = new ReusedBuffer(256),
    private readonly valueBuffer: ReusedBuffer = new ReusedBuffer(256),
  ) {
    super();
  }

  override entriesOf(nsKey: string | number): Map<NormalizedKey, V> {
    if (nsKey === this.lastNsKey) return this.lastView!;
    let view = this.views.get(nsKey);
    if (view === undefined) this.views.set(nsKey, (view = new NamespaceView(this, nsKey)));
    this.lastNsKey = nsKey;
    this.lastView = view;
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
   * Writes every dirty entry through `put` / `remove` (called inside one LMDB transaction), in key group order:
   * keys are ordered by key group first, so consecutive puts land in neighbouring pages instead of anywhere in the
   * tree. A counting sort over the key groups costs O(entries + max parallelism). The key and value handed to
   * `put` are views of reused buffers, valid until the next call (LMDB copies them during the call).
   */
  flush(put: (key: Buffer, value: Buffer) => void, remove: (key: Buffer) => void): void {
    let total = 0;
    for (const view of this.views.values()) total += view.dirty.size;
    if (total === 0) return;
    const maxParallelism = this.host.maxParallelism;
    const counts = (this.groupCounts ??= new Uint32Array(maxParallelism + 1));
    counts.fill(0);
    for (const view of this.views.values()) for (const kg of view.dirty.values()) counts[kg + 1]!++;
    for (let kg = 1; kg <= maxParallelism; kg++) counts[kg]! += counts[kg - 1]!;
    // Stryker disable next-line ArrayDeclaration: the lengths only presize the arrays
    const keys: NormalizedKey[] = new Array(total);
    const views: NamespaceView<V>[] = new Array(total);
    const groups = new Uint16Array(total);
    for (const view of this.views.values()) {
      for (const [key, kg] of view.dirty) {
        const at = counts[kg]!++;
        keys[at] = key;
        views[at] = view;
        groups[at] = kg;
      }
    }
    const state = this.state;
    const ttl = state.descriptor.ttl !== undefined;
    const serializer = state.descriptor.serializer;
    const direct = serializer === structuredCloneSerializer;
    const keyBuffer = this.keyBuffer;
    const valueBuffer = this.valueBuffer;
    for (let i = 0; i < total; i++) {
      const key = keys[i]!;
      const view = views[i]!;
      const keyLength = entryKeyLength(view.nsKey, key);
      writeEntryKey(keyBuffer.reserve(keyLength), groups[i]!, this.stateId, view.nsKey, key);
      const dbKey = keyBuffer.view(keyLength);
      const stored = view.raw(key);
      if (stored === ABSENT || stored === undefined) {
        remove(dbKey);
        continue;
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
    for (const view of this.views.values()) view.dirty.clear();
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
    this.lastNsKey = undefined;
    this.lastView = undefined;
  }
}
