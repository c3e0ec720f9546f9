// DeltaTrigger's state on its own: the reference element, how it is snapshotted, and its removal.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TriggerTestHarness } from '../../../test/support/trigger-test-harness.ts';
import { structuredCloneSerializer, type TypeSerializer } from '../../core/type-serializer.ts';
import { TimeWindow, timeWindowSerializer } from '../time-window.ts';
import { TriggerResult } from '../trigger-result.ts';
import { DeltaTrigger } from './delta-trigger.ts';

const { CONTINUE, FIRE } = TriggerResult;
const w = new TimeWindow(0, 100);

describe('DeltaTrigger', () => {
  it('snapshots its reference element with the serializer given, and clear drops it', () => {
    const serialized: number[] = [];
    const serializer: TypeSerializer<number> = {
      serialize: (value) => {
        serialized.push(value);
        return structuredCloneSerializer.serialize(value);
      },
      deserialize: (bytes) => structuredCloneSerializer.deserialize(bytes) as number,
    };
    const h = new TriggerTestHarness(
      DeltaTrigger.of<number, TimeWindow>(2.5, (a, b) => b - a, serializer),
      timeWindowSerializer,
    );
    assert.equal(h.processElement(1, 0, w), CONTINUE);
    assert.equal(h.processElement(4, 0, w), FIRE);
    assert.equal(h.numStateEntries(), 1);
    h.snapshot();
    assert.deepEqual(serialized, [4], 'the element of the last firing');
    h.clearTriggerState(w);
    assert.equal(h.numStateEntries(), 0);
    // After clear the next element is the new reference.
    assert.equal(h.processElement(5, 0, w), CONTINUE);
    assert.equal(h.processElement(7, 0, w), CONTINUE);
  });
});
