// Namespaces partition one key's state (a window is a namespace); VoidNamespace is the namespace of plain keyed state.
import { structuredCloneSerializer, type TypeSerializer } from '../core/type-serializer.ts';

/**
 * How a namespace type maps to a primitive lookup key and to bytes. The lookup key must be equal for equal
 * namespaces (e.g. two `TimeWindow`s with the same start and end), so it can index Maps and de-duplicate timers.
 */
export interface NamespaceSerializer<N> {
  key(namespace: N): string | number;
  readonly serializer: TypeSerializer<N>;
  /**
   * For namespaces whose key costs an allocation to build (a session window's `start:end` string): a cheaper
   * identity the heap backend indexes its entries by instead. The key stays what snapshots and durable state
   * write, so it is still needed there, but never on the path of a record.
   */
  readonly hashing?: NamespaceHashing<N>;
}

/**
 * A namespace as a number that costs no allocation to compute (a small integer at best: V8 compares those
 * inline), with the equality that tells apart two namespaces of one hash. `hash` must be equal for namespaces
 * that are `equals`, and `equals` must agree with `key`: equal keys, equal namespaces.
 */
export interface NamespaceHashing<N> {
  hash(namespace: N): number;
  equals(a: N, b: N): boolean;
  /**
   * Whether a key holds only a few of these namespaces at a time and few keys share one (session windows: a
   * state window belongs to one key): the heap backend then indexes the entries by key first, so a record finds
   * its key's namespaces with one lookup of the key.
   */
  readonly fewPerKey?: boolean;
}

/** The single namespace of state that is not partitioned further (Flink's `VoidNamespace.INSTANCE`). */
export const VoidNamespace = 0 as const;
export type VoidNamespace = typeof VoidNamespace;

export const voidNamespaceSerializer: NamespaceSerializer<VoidNamespace> = {
  key: () => 0,
  serializer: structuredCloneSerializer,
};

/**
 * The void namespace of a state that a record reads together with key-first state of the same key (a merging window
 * set, read with the session panes it points to), and of the keyed state user functions get from their runtime
 * context: the heap backend keeps its value in the key's row beside theirs (see `KeyRows`), so all of them are found
 * with one lookup of the key, and a value read and then written costs one lookup. Key and bytes are those of
 * {@link voidNamespaceSerializer}: snapshots and durable state are the same.
 */
export const keyRowVoidNamespaceSerializer: NamespaceSerializer<VoidNamespace> = {
  key: () => 0,
  serializer: structuredCloneSerializer,
  hashing: { hash: () => 0, equals: (a, b) => a === b, fewPerKey: true },
};
