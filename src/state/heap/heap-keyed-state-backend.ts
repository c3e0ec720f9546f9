// The heap keyed state backend: live objects in Maps, snapshotted to bytes by key group.
import { IllegalStateError } from '../../core/errors.ts';
import type { KeyedStateBackend, KeyGroupSnapshot, InternalStateFor } from '../keyed-state-backend.ts';
import { KeyContext } from '../key-context.ts';
import {
  columnNamespaces,
  decodeKeyGroup,
  encodeKeyGroup,
  StateColumnsBuilder,
  unpacked,
  type PendingColumns,
  type StateColumns,
} from '../key-group-format.ts';
import type { KeyGroupRange } from '../key-group-range.ts';
import { denormalizeKey, keyGroupFor, type NormalizedKey } from '../key-hash.ts';
import type { NamespaceSerializer } from '../namespace.ts';
import type { StateDescriptor } from '../../core/state-descriptor.ts';
import type { AbstractHeapState, HeapStateHost, TtlValue } from './abstract-heap-state.ts';
import { HeapAggregatingState } from './heap-aggregating-state.ts';
import { HeapListState } from './heap-list-state.ts';
import { HeapMapState } from './heap-map-state.ts';
import { HeapReducingState } from './heap-reducing-state.ts';
import { HeapValueState } from './heap-value-state.ts';
import { KeyRows } from './key-rows.ts';
import {
  declaredClassOf,
  isEmptySample,
  lostClassOf,
  structuredCloneSerializer,
} from '../../core/type-serializer.ts';
import { lostClassError } from '../lost-class-error.ts';

/**
 * Keeps keyed state as live JavaScript values (Flink's HashMapStateBackend): reads and writes cost a Map lookup
 * and never serialize. Serialization happens only in `snapshot`, one key group at a time, so snapshots can be
 * redistributed to another parallelism.
 */
export class HeapKeyedStateBackend extends KeyContext implements KeyedStateBackend, HeapStateHost {
  private readonly states = new Map<string, AbstractHeapState<any, any>>();
  /** The key-first states' entries, one row per key (see {@link KeyRows}). */
  readonly keyRows = new KeyRows();
  /** Restored entries waiting for their state to be registered (operators register state in `open`). */
  private readonly pendingRestore = new Map<string, PendingColumns[]>();

  constructor(
    maxParallelism: number,
    readonly keyGroupRange: KeyGroupRange,
    private readonly clock: () => number,
    operatorName = 'operator',
  ) {
    super(maxParallelism, operatorName);
  }

  now(): number {
    return this.clock();
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

  numStateEntries(stateName?: string): number {
    let n = 0;
    for (const [name, state] of this.states) {
      if (stateName === undefined || name === stateName) n += state.table.size();
    }
    for (const [name, pending] of this.pendingRestore) {
      if (stateName === undefined || name === stateName) for (const p of pending) n += p.columns.keys.length;
    }
    return n;
  }

  *getKeys(stateName: string): Iterable<unknown> {
    const state = this.states.get(stateName);
    if (state === undefined) return;
    const seen = new Set<NormalizedKey>();
    for (const inner of state.table.namespaces()) {
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
      // Stryker disable next-line ArrayDeclaration: the length only presizes the array; a sparse one indexes the same
      const builders: (StateColumnsBuilder | undefined)[] = new Array(this.maxParallelism);
      const touched: number[] = [];
      for (const inner of state.table.namespaces()) {
        const namespace = inner.namespace;
        // The serializer's key, not the table's lookup key (a hash, for some namespaces): what snapshots hold.
        const nsKey = state.namespaceSerializer.key(namespace);
        const ns = rawNamespaces ? namespace : nsSerializer.serialize(namespace);
        const token = {};
        for (const [key, stored] of inner) {
          if (ttl && state.isExpired(stored as TtlValue<unknown>, now)) continue;
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
            // Stryker disable next-line StringLiteral: the constructor already defaults the operator name to 'operator'
            if (lost !== undefined) throw lostClassError(name, this.operatorName ?? 'operator', lost);
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
      .map(([keyGroup, states]) => ({ keyGroup, bytes: encodeKeyGroup(states) }));
  }

  restore(snapshots: Iterable<KeyGroupSnapshot>): void {
    for (const { keyGroup, bytes } of snapshots) {
      if (!this.keyGroupRange.contains(keyGroup)) continue;
      for (const columns of decodeKeyGroup(keyGroup, bytes)) {
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
    const table = state.table;
    const nsKeys = namespaces.map((ns) => table.keyOf(ns));
    const { nsOf, keys, values, valueBytes, valueEnds, lastAccess } = columns;
    const serializer = state.descriptor.serializer;
    for (let i = 0; i < keys.length; i++) {
      const n = nsOf[i]!;
      const value =
        values !== undefined ? values[i] : serializer.deserialize(unpacked(valueBytes!, valueEnds!, i));
      const access = lastAccess !== undefined && lastAccess[i]! >= 0 ? lastAccess[i]! : now;
      table.write(keys[i]!, nsKeys[n]!, namespaces[n], state.wrap(value, access));
    }
  }

  dispose(): void {
    for (const state of this.states.values()) state.table.clear();
    this.states.clear();
    this.pendingRestore.clear();
  }
}
