// How state values become bytes for snapshots and durable backends.
import { deserialize, serialize } from 'node:v8';

/**
 * Turns values into bytes and back. State and timers are kept as live objects in the heap backend and only
 * pass through a serializer when a snapshot is taken or a durable backend stores them.
 */
export interface TypeSerializer<T> {
  serialize(value: T): Uint8Array;
  deserialize(bytes: Uint8Array): T;
}

/**
 * The default serializer: V8's structured clone, which handles primitives, bigints, plain objects, arrays,
 * Maps, Sets, Dates and typed arrays. Class instances come back as plain objects; give a descriptor its own
 * serializer to restore a class.
 */
export const structuredCloneSerializer: TypeSerializer<any> = {
  serialize: (value) => serialize(value),
  deserialize: (bytes) => deserialize(bytes),
};

/** A class whose instances state holds. */
export type StateClass<T> = abstract new (...args: never[]) => T;

/** Prototypes structured clone restores itself, so values of these types need no class serializer. */
const CLONEABLE_PROTOTYPES = new Set<object | null>([
  null,
  Object.prototype,
  Array.prototype,
  Map.prototype,
  Set.prototype,
  Date.prototype,
  RegExp.prototype,
  ArrayBuffer.prototype,
  DataView.prototype,
  Error.prototype,
]);

/**
 * The name of the class of `value` that structured clone would turn into a plain object, or undefined. Looks at
 * the value itself, the first element of an array and the first value of a Map (a state holds one type).
 */
export function lostClassOf(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  if (Array.isArray(value)) return value.length > 0 ? lostClassOf(value[0]) : undefined;
  if (value instanceof Map) {
    for (const v of value.values()) return lostClassOf(v);
    return undefined;
  }
  const proto = Object.getPrototypeOf(value) as object | null;
  if (CLONEABLE_PROTOTYPES.has(proto) || ArrayBuffer.isView(value)) return undefined;
  return (proto as { constructor?: { name?: string } }).constructor?.name ?? 'an anonymous class';
}

/**
 * A serializer that restores instances of `type` (their own fields go through structured clone, then get the
 * class's prototype back; the constructor is not called). It applies to the value of a ValueState, Reducing- or
 * AggregatingState, each element of a ListState and each value of a MapState. Fields that hold other class
 * instances need a serializer of their own (write one with `serialize`/`deserialize`).
 */
export function classSerializer<T>(type: StateClass<T>): TypeSerializer<any> {
  const revive = (fields: unknown): unknown =>
    fields === null || typeof fields !== 'object'
      ? fields
      : Object.assign(Object.create(type.prototype as object) as object, fields);
  const plain = (value: unknown): unknown => (value instanceof type ? { ...(value as object) } : value);
  return {
    serialize(value: unknown): Uint8Array {
      if (Array.isArray(value)) return serialize({ list: value.map(plain) });
      if (value instanceof Map) return serialize({ map: [...value].map(([k, v]) => [k, plain(v)]) });
      return serialize({ value: plain(value) });
    },
    deserialize(bytes: Uint8Array): unknown {
      const data = deserialize(bytes) as { list?: unknown[]; map?: [unknown, unknown][]; value?: unknown };
      if (data.list !== undefined) return data.list.map(revive);
      if (data.map !== undefined) return new Map(data.map.map(([k, v]) => [k, revive(v)]));
      return revive(data.value);
    },
  };
}
