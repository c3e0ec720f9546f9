// The heap keyed state backend: live objects in Maps, snapshotted to bytes by key group.
import { deserialize, serialize } from 'node:v8';
import { IllegalStateError } from '../../core/errors.ts';
import {
  noCurrentKey,
  type KeyedStateBackend,
  type KeyGroupSnapshot,
  type InternalStateFor,
} from '../keyed-state-backend.ts';
import { KeyGroupRange } from '../key-group-range.ts';
import { denormalizeKey, keyGroupFor, normalizeKey, type NormalizedKey } from '../key-hash.ts';
import type { NamespaceSerializer } from '../namespace.ts';
import type { StateDescriptor } from '../../core/state-descriptor.ts';
import type { AbstractHeapState, HeapStateHost, TtlValue } from './abstract-heap-state.ts';
import { HeapAggregatingState } from './heap-aggregating-state.ts';
import { HeapListState } from './heap-list-state.ts';
import { HeapMapState } from './heap-map-state.ts';
import { HeapReducingState } from './heap-reducing-state.ts';
import { HeapValueState } from './heap-value-state.ts';
import {
  declaredClassOf,
  isEmptySample,
  lostClassOf,
  structuredCloneSerializer,
} from '../../core/type-serializer.ts';
import { lostClassError } from '../lost-class-error.ts';

/**
 * The key-group snapshot format, shared by every backend (savepoints move between them): `v8.serialize` of an
 * array with one {@link StateColumns} per state that has entries in the group. Format 2 stores each state in
 * columns so a key group costs one `v8.serialize`, not one per value: under the default (structured clone)
 * serializer, namespaces and values are stored as they are ("raw") and are cloned by that single call; under a
 * custom serializer, its bytes are packed into one buffer with end offsets. Format 1 (`entries` tuples of
 * per-value bytes, {@link LegacyStateEntries}) is still read.
 */
export interface StateColumns {
  name: string;
  kind: string;
  format: 2;
  /** Raw namespaces (default namespace serializer); otherwise `nsBytes`/`nsEnds` hold the serializer's bytes. */
  namespaces?: unknown[];
  nsBytes?: Uint8Array;
  nsEnds?: Uint32Array;
  /** Each namespace's lookup key (`NamespaceSerializer.key`), so entries can be keyed before their state is registered. */
  nsKeys?: (string | number)[];
  /** Per entry: the index of its namespace. */
  nsOf: Uint32Array;
  /** Per entry: the normalised key. */
  keys: NormalizedKey[];
  /** Raw values (default serializer); otherwise `valueBytes`/`valueEnds` hold the serializer's bytes. */
  values?: unknown[];
  valueBytes?: Uint8Array;
  valueEnds?: Uint32Array;
  /** Per entry: last access time (TTL); absent when no entry has one. */
  lastAccess?: Float64Array;
}

/** Format 1: [namespace bytes, normalised key, value bytes, last access or -1, namespace lookup key (optional)]. */
export interface LegacyStateEntries {
  name: string;
  kind: string;
  entries: [Uint8Array, NormalizedKey, Uint8Array, number, (string | number)?][];
}

/** Columns waiting for their state to be registered, with the key group they came from. */
export interface PendingColumns {
  readonly keyGroup: number;
  readonly columns: StateColumns;
}

/** Packs byte arrays into one buffer plus end offsets (v8 serializes one buffer far faster than many). */
function pack(parts: Uint8Array[]): { bytes: Uint8Array; ends: Uint32Array } {
  const ends = new Uint32Array(parts.length);
  let at = 0;
  for (let i = 0; i < parts.length; i++) ends[i] = at += parts[i]!.byteLength;
  return { bytes: parts.length === 1 ? parts[0]! : Buffer.concat(parts, at), ends };
}

/** The `i`th of packed byte arrays (a view). */
export function unpacked(bytes: Uint8Array, ends: Uint32Array, i: number): Uint8Array {
  return bytes.subarray(i === 0 ? 0 : ends[i - 1]!, ends[i]!);
}

/** Builds one state's {@link StateColumns} of one key group, namespace by namespace. */
export class StateColumnsBuilder {
  private readonly namespaces: unknown[] = [];
  private readonly nsKeys: (string | number)[] = [];
  private readonly nsOf: number[] = [];
  private readonly keys: NormalizedKey[] = [];
  private readonly values: unknown[] = [];
  /** Created at the first entry with a last access time (TTL), back-filled with -1. */
  private lastAccess: number[] | undefined = undefined;
  /** The namespace added last (entries of one namespace arrive together), and its index. */
  private lastNs: unknown = undefined;
  private lastNsIndex = -1;

  constructor(
    readonly name: string,
    readonly kind: string,
    /** Whether namespaces are raw values (else serializer bytes). */
    private readonly rawNamespaces: boolean,
    /** Whether values are raw values (else serializer bytes). */
    private readonly rawValues: boolean,
  ) {}

  /**
   * Adds an entry. `namespace` (raw or bytes, by the builder's mode) is compared by identity with the previous
   * entry's: pass the same object for every entry of one namespace.
   */
  add(
    namespaceToken: unknown,
    namespace: unknown,
    nsKey: string | number,
    key: NormalizedKey,
    value: unknown,
    lastAccess: number,
  ): void {
    if (namespaceToken !== this.lastNs || this.lastNsIndex < 0) {
      this.lastNs = namespaceToken;
      this.lastNsIndex = this.namespaces.length;
      this.namespaces.push(namespace);
      this.nsKeys.push(nsKey);
    }
    this.nsOf.push(this.lastNsIndex);
    this.keys.push(key);
    this.values.push(value);
    if (this.lastAccess !== undefined) this.lastAccess.push(lastAccess);
    else if (lastAccess >= 0) {
      this.lastAccess = new Array<number>(this.keys.length - 1).fill(-1);
      this.lastAccess.push(lastAccess);
    }
  }

  get size(): number {
    return this.keys.length;
  }

  build(): StateColumns {
    const out: StateColumns = {
      name: this.name,
      kind: this.kind,
      format: 2,
      nsKeys: this.nsKeys,
      nsOf: Uint32Array.from(this.nsOf),
      keys: this.keys,
    };
    if (this.rawNamespaces) out.namespaces = this.namespaces;
    else {
      const { bytes, ends } = pack(this.namespaces as Uint8Array[]);
      out.nsBytes = bytes;
      out.nsEnds = ends;
    }
    if (this.rawValues) out.values = this.values;
    else {
      const { bytes, ends } = pack(this.values as Uint8Array[]);
      out.valueBytes = bytes;
      out.valueEnds = ends;
    }
    if (this.lastAccess !== undefined) out.lastAccess = Float64Array.from(this.lastAccess);
    return out;
  }
}

/** Reads one state of a deserialized key group in either format as {@link StateColumns}. */
export function toColumns(stored: StateColumns | LegacyStateEntries): StateColumns {
  if ((stored as StateColumns).format === 2) return stored as StateColumns;
  const { name, kind, entries } = stored as LegacyStateEntries;
  // Entries of one namespace share one namespace bytes object (v8 keeps identity), or carry its lookup key.
  const withKeys = entries.every((e) => e[4] !== undefined);
  const builder = new StateColumnsBuilder(name, kind, false, false);
  for (const [nsBytes, key, valueBytes, lastAccess, nsKey] of entries)
    builder.add(withKeys ? nsKey : nsBytes, nsBytes, nsKey ?? 0, key, valueBytes, lastAccess);
  const columns = builder.build();
  if (!withKeys) delete columns.nsKeys;
  return columns;
}

/** The namespaces of columns as values, deserializing packed bytes with `deserialize`. */
export function columnNamespaces(
  columns: StateColumns,
  deserialize: (bytes: Uint8Array) => unknown,
): unknown[] {
  if (columns.namespaces !== undefined) return columns.namespaces;
  const ends = columns.nsEnds!;
  const out: unknown[] = new Array(ends.length);
  for (let i = 0; i < ends.length; i++) out[i] = deserialize(unpacked(columns.nsBytes!, ends, i));
  return out;
}

/**
 * Keeps keyed state as live JavaScript values (Flink's HashMapStateBackend): reads and writes cost a Map lookup
 * and never serialize. Serialization happens only in `snapshot`, one key group at a time, so snapshots can be
 * redistributed to another parallelism.
 */
export class HeapKeyedStateBackend implements KeyedStateBackend, HeapStateHost {
  private currentKey: unknown = undefined;
  private currentNormalized: NormalizedKey = 0;
  private keyless = false;
  private currentKeyGroup = -1;
  private readonly states = new Map<string, AbstractHeapState<any, any>>();
  /** Restored entries waiting for their state to be registered (operators register state in `open`). */
  private readonly pendingRestore = new Map<string, PendingColumns[]>();

  constructor(
    readonly maxParallelism: number,
    readonly keyGroupRange: KeyGroupRange,
    private readonly clock: () => number,
    private readonly operatorName = 'operator',
  ) {}

  now(): number {
    return this.clock();
  }

  setCurrentKey(key: unknown): void {
    this.currentKey = key;
    this.currentNormalized = normalizeKey(key);
    this.currentKeyGroup = -1;
    this.keyless = false;
  }

  /** Sets the current key from its normalised form (timers keep keys normalised). */
  setCurrentNormalizedKey(normalized: NormalizedKey, key: unknown): void {
    this.currentKey = key;
    this.currentNormalized = normalized;
    this.currentKeyGroup = -1;
    this.keyless = false;
  }

  getCurrentKey(): unknown {
    return this.currentKey;
  }

  clearCurrentKey(): void {
    this.currentKey = undefined;
    this.keyless = true;
  }

  currentNormalizedKey(): NormalizedKey {
    if (this.keyless) throw noCurrentKey(this.operatorName);
    return this.currentNormalized;
  }

  getCurrentKeyGroup(): number {
    if (this.currentKeyGroup < 0)
      this.currentKeyGroup = keyGroupFor(this.currentNormalized, this.maxParallelism);
    return this.currentKeyGroup;
  }

  getOrCreateKeyedState<D extends StateDescriptor<any, any>, N>(
    descriptor: D,
    namespaceSerializer: NamespaceSerializer<N>,
  ): InternalStateFor<D, N> {
    const existing = this.states.get(descriptor.name);
    if (existing !== undefined) {
      if (existing.descriptor.kind !== descriptor.kind) {
        throw new IllegalStateError(
          `Operator '${this.operatorName}': state '${descriptor.name}' was registered as ${existing.descriptor.kind} state and is now asked for as ${descriptor.kind} state`,
        );
      }
      return existing as unknown as InternalStateFor<D, N>;
    }
    const initial = undefined as unknown as N;
    let state: AbstractHeapState<N, any>;
    switch (descriptor.kind) {
      case 'value':
        state = new HeapValueState(this, descriptor, namespaceSerializer, initial);
        break;
      case 'list':
        state = new HeapListState(this, descriptor, namespaceSerializer, initial);
        break;
      case 'map':
        state = new HeapMapState(this, descriptor, namespaceSerializer, initial);
        break;
      case 'reducing':
        state = new HeapReducingState(this, descriptor, namespaceSerializer, initial);
        break;
      case 'aggregating':
        state = new HeapAggregatingState(this, descriptor, namespaceSerializer, initial);
        break;
      default:
        throw new IllegalStateError(`Unknown state kind ${String(descriptor.kind)}`);
    }
    this.states.set(descriptor.name, state);
    const pending = this.pendingRestore.get(descriptor.name);
    if (pending !== undefined) {
      this.pendingRestore.delete(descriptor.name);
      for (const { columns } of pending) this.load(state, columns);
    }
    return state as unknown as InternalStateFor<D, N>;
  }

  numStateEntries(): number {
    let n = 0;
    for (const state of this.states.values()) n += state.table.size();
    for (const pending of this.pendingRestore.values()) for (const p of pending) n += p.columns.keys.length;
    return n;
  }

  *getKeys(stateName: string): Iterable<unknown> {
    const state = this.states.get(stateName);
    if (state === undefined) return;
    const seen = new Set<NormalizedKey>();
    for (const inner of state.table.byNamespace.values()) {
      for (const key of inner.keys()) {
        if (seen.has(key)) continue;
        seen.add(key);
        yield denormalizeKey(key);
      }
    }
  }

  snapshot(): KeyGroupSnapshot[] {
    const now = this.clock();
    const byGroup = new Map<number, StateColumns[]>();
    const add = (kg: number, columns: StateColumns): void => {
      let list = byGroup.get(kg);
      if (list === undefined) byGroup.set(kg, (list = []));
      list.push(columns);
    };
    for (const [name, state] of this.states) {
      const nsSerializer = state.namespaceSerializer.serializer;
      const valueSerializer = state.descriptor.serializer;
      // Under the default serializer, values go into the key group's one v8.serialize as they are.
      const rawNamespaces = nsSerializer === structuredCloneSerializer;
      const rawValues = valueSerializer === structuredCloneSerializer;
      const ttl = state.descriptor.ttl !== undefined;
      // One value per state shows whether it holds class instances structured clone would lose (a state holds
      // one type): the value itself under the default serializer, fields of the declared class under `type`.
      const declared = declaredClassOf(valueSerializer);
      let checkedClass = !rawValues && declared === undefined;
      const builders: (StateColumnsBuilder | undefined)[] = new Array(this.maxParallelism);
      const touched: number[] = [];
      for (const [nsKey, inner] of state.table.byNamespace) {
        const namespace = state.table.namespaces.get(nsKey);
        const ns = rawNamespaces ? namespace : nsSerializer.serialize(namespace);
        const token = {};
        for (const [key, stored] of inner) {
          if (ttl && state.isExpired(stored, now)) continue;
          const kg = keyGroupFor(key, this.maxParallelism);
          let builder = builders[kg];
          if (builder === undefined) {
            builders[kg] = builder = new StateColumnsBuilder(
              name,
              state.descriptor.kind,
              rawNamespaces,
              rawValues,
            );
            touched.push(kg);
          }
          const value = state.unwrap(stored);
          if (!checkedClass) {
            checkedClass = !isEmptySample(value);
            const lost = lostClassOf(value, declared);
            if (lost !== undefined) throw lostClassError(name, this.operatorName, lost);
          }
          builder.add(
            token,
            ns,
            nsKey,
            key,
            rawValues ? value : valueSerializer.serialize(value),
            ttl ? (stored as TtlValue<unknown>).lastAccess : -1,
          );
        }
      }
      for (const kg of touched) add(kg, builders[kg]!.build());
    }
    for (const pending of this.pendingRestore.values()) for (const p of pending) add(p.keyGroup, p.columns);
    return [...byGroup]
      .sort((a, b) => a[0] - b[0])
      .map(([keyGroup, states]) => ({ keyGroup, bytes: new Uint8Array(serialize(states)) }));
  }

  restore(snapshots: Iterable<KeyGroupSnapshot>): void {
    for (const { keyGroup, bytes } of snapshots) {
      if (!this.keyGroupRange.contains(keyGroup)) continue;
      const states = deserialize(bytes) as (StateColumns | LegacyStateEntries)[];
      for (const stored of states) {
        const columns = toColumns(stored);
        const state = this.states.get(columns.name);
        if (state !== undefined) this.load(state, columns);
        else {
          let pending = this.pendingRestore.get(columns.name);
          if (pending === undefined) this.pendingRestore.set(columns.name, (pending = []));
          pending.push({ keyGroup, columns });
        }
      }
    }
  }

  private load(state: AbstractHeapState<any, any>, columns: StateColumns): void {
    const now = this.clock();
    const nsSerializer = state.namespaceSerializer;
    const namespaces = columnNamespaces(columns, (b) => nsSerializer.serializer.deserialize(b));
    const nsKeys = namespaces.map((ns) => nsSerializer.key(ns));
    const { nsOf, keys, values, valueBytes, valueEnds, lastAccess } = columns;
    const serializer = state.descriptor.serializer;
    const table = state.table;
    for (let i = 0; i < keys.length; i++) {
      const n = nsOf[i]!;
      const value =
        values !== undefined ? values[i] : serializer.deserialize(unpacked(valueBytes!, valueEnds!, i));
      const access = lastAccess !== undefined && lastAccess[i]! >= 0 ? lastAccess[i]! : now;
      table.entriesForWrite(nsKeys[n]!, namespaces[n]).set(keys[i]!, state.wrap(value, access));
    }
  }

  dispose(): void {
    for (const state of this.states.values()) state.table.clear();
    this.states.clear();
    this.pendingRestore.clear();
  }
}
