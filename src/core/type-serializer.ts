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
