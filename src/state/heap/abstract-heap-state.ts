// The shared part of every heap state handle: current key and namespace, TTL, and access to the StateTable.
import type { NamespaceHashing, NamespaceSerializer } from '../namespace.ts';
import type { StateDescriptor } from '../../core/state-descriptor.ts';
import type { NormalizedKey } from '../key-hash.ts';
import { StateTable } from './state-table.ts';
import { KeyFirstStateTable } from './key-first-state-table.ts';
import type { KeyRows } from './key-rows.ts';

/** What a heap state needs from its backend: the current key and the clock that TTL reads. */
export interface HeapStateHost {
  currentNormalizedKey(): NormalizedKey;
  now(): number;
  /** The rows the backend's key-first states share (see {@link KeyRows}); absent, each keeps rows of its own. */
  readonly keyRows?: KeyRows;
}

/** A value stored with the time it was last written (or read, for `OnReadAndWrite`), when the state has a TTL. */
export interface TtlValue<V> {
  value: V;
  lastAccess: number;
}

/**
 * Keeps the current namespace; the StateTable caches the inner Map of the namespace used last, so a read or write
 * on the hot path is one Map operation. TTL wrapping is decided once per state, not per record.
 *
 * The appending states (list, reducing, aggregating) return from `add` whether the call created the entry (it
 * was absent or expired before). The `AppendingState` contract returns nothing, so callers must treat anything but
 * `false` as "unknown"; the window operator uses a `false` to skip re-registering timers that must already exist.
 */
export abstract class AbstractHeapState<N, V> {
  readonly table: StateTable<V | TtlValue<V>>;
  /** The current namespace's lookup key in the table (see {@link StateTable.keyOf}). */
  protected nsKey: string | number;
  protected namespace: N;
  protected readonly ttlMs: number;
  protected readonly refreshOnRead: boolean;

  constructor(
    protected readonly host: HeapStateHost,
    readonly descriptor: StateDescriptor<any, any>,
    readonly namespaceSerializer: NamespaceSerializer<N>,
    initialNamespace: N,
  ) {
    this.table = stateTableFor(namespaceSerializer, host.keyRows);
    this.namespace = initialNamespace;
    this.nsKey = this.table.keyOf(initialNamespace);
    this.ttlMs = descriptor.ttl?.ttlMs ?? 0;
    this.refreshOnRead = descriptor.ttl?.updateType === 'OnReadAndWrite';
  }

  setCurrentNamespace(namespace: N): void {
    this.namespace = namespace;
    this.nsKey = this.table.keyOf(namespace);
  }

  /** The raw stored value of the current (key, namespace), undefined when absent or expired. */
  protected getRaw(): V | undefined {
    // The key first: a read without one fails even where the namespace holds nothing.
    const key = this.host.currentNormalizedKey();
    const stored = this.table.read(key, this.nsKey, this.namespace);
    if (stored === undefined || this.ttlMs === 0) return stored as V | undefined;
    const wrapped = stored as TtlValue<V>;
    const now = this.host.now();
    if (now - wrapped.lastAccess >= this.ttlMs) {
      this.table.remove(this.nsKey, key, this.namespace);
      return undefined;
    }
    if (this.refreshOnRead) wrapped.lastAccess = now;
    return wrapped.value;
  }

  protected putRaw(value: V): void {
    this.table.write(
      this.host.currentNormalizedKey(),
      this.nsKey,
      this.namespace,
      this.ttlMs === 0 ? value : { value, lastAccess: this.host.now() },
    );
  }

  /** Reads the entry of another namespace of the current key (merging), honouring TTL. */
  protected getRawIn(namespace: N): V | undefined {
    const savedKey = this.nsKey;
    const saved = this.namespace;
    this.setCurrentNamespace(namespace);
    try {
      return this.getRaw();
    } finally {
      this.nsKey = savedKey;
      this.namespace = saved;
    }
  }

  protected removeIn(namespace: N): void {
    this.table.remove(this.table.keyOf(namespace), this.host.currentNormalizedKey(), namespace);
  }

  clear(): void {
    this.table.remove(this.nsKey, this.host.currentNormalizedKey(), this.namespace);
  }

  /** Whether a stored entry of a state with a TTL has expired at `now` (snapshots skip expired entries). */
  isExpired(stored: TtlValue<V>, now: number): boolean {
    return now - stored.lastAccess >= this.ttlMs;
  }

  /** Unwraps a stored entry for a snapshot. */
  unwrap(stored: V | TtlValue<V>): V {
    return this.ttlMs === 0 ? (stored as V) : (stored as TtlValue<V>).value;
  }

  /** Wraps a restored value. */
  wrap(value: V, now: number): V | TtlValue<V> {
    return this.ttlMs === 0 ? value : { value, lastAccess: now };
  }
}

/** The table layout the namespaces ask for: key first for namespaces few to a key (sessions), else namespace first. */
function stateTableFor<V>(namespaceSerializer: NamespaceSerializer<any>, rows?: KeyRows): StateTable<V> {
  const hashing = namespaceSerializer.hashing;
  return hashing?.fewPerKey === true
    ? new KeyFirstStateTable<V>(
        namespaceSerializer as NamespaceSerializer<any> & { hashing: NamespaceHashing<any> },
        rows,
      )
    : new StateTable<V>(namespaceSerializer);
}
