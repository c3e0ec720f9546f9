// Namespaces partition one key's state (a window is a namespace); VoidNamespace is the namespace of plain keyed state.
import { structuredCloneSerializer, type TypeSerializer } from '../core/type-serializer.ts';

/**
 * How a namespace type maps to a primitive lookup key and to bytes. The lookup key must be equal for equal
 * namespaces (e.g. two `TimeWindow`s with the same start and end), so it can index Maps and de-duplicate timers.
 */
export interface NamespaceSerializer<N> {
  key(namespace: N): string | number;
  readonly serializer: TypeSerializer<N>;
}

/** The single namespace of state that is not partitioned further (Flink's `VoidNamespace.INSTANCE`). */
export const VoidNamespace = 0 as const;
export type VoidNamespace = typeof VoidNamespace;

export const voidNamespaceSerializer: NamespaceSerializer<VoidNamespace> = {
  key: () => 0,
  serializer: structuredCloneSerializer,
};
