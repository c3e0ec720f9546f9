// Weir's hook for the 1,000,000-key ValueState<number> micro-benchmark: the heap backend's bytes per key.
import { HeapKeyedStateBackend } from '../../src/state/heap/heap-keyed-state-backend.ts';
import { KeyGroupRange } from '../../src/state/key-group-range.ts';
import { keyRowVoidNamespaceSerializer } from '../../src/state/namespace.ts';
import { ValueStateDescriptor } from '../../src/core/state-descriptor.ts';
import type { ValueStateHolder } from '../workloads/system.ts';

/**
 * Key i holds value i, in one ValueState of a heap backend owning every key group (a parallelism-1 operator), under
 * the namespace a user function's state gets from its runtime context (the key's row). The row index's Int32Array
 * lies outside the JavaScript heap (16.8 bytes per key at 1,000,000 keys): the micro-benchmark counts array buffers.
 */
export const weirValueStateHolder: ValueStateHolder = async (keys) => {
  let backend: HeapKeyedStateBackend | undefined = new HeapKeyedStateBackend(
    128,
    new KeyGroupRange(0, 127),
    () => 0,
  );
  const state = backend.getOrCreateKeyedState(
    new ValueStateDescriptor<number>('value'),
    keyRowVoidNamespaceSerializer,
  );
  state.setCurrentNamespace(0);
  for (let i = 0; i < keys; i++) {
    backend.setCurrentKey(i);
    state.update(i);
  }
  return () => {
    backend?.dispose();
    backend = undefined;
  };
};
