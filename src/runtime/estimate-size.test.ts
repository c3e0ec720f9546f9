// estimateSize: the bytes a blocked channel counts per buffered record, exact for each kind of value.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { estimateSize } from './estimate-size.ts';

describe('estimateSize', () => {
  it('counts 8 bytes for numbers, booleans, undefined, null, symbols and functions', () => {
    for (const value of [1.5, true, undefined, null, Symbol('s'), () => 1])
      assert.equal(estimateSize(value), 8);
  });

  it('counts a string as a header plus two bytes per character', () => {
    assert.equal(estimateSize(''), 16);
    assert.equal(estimateSize('abc'), 22);
  });

  it('counts a bigint as a header plus its bytes, rounded up', () => {
    assert.equal(estimateSize(0xffn), 17);
    assert.equal(estimateSize(0x100n), 18, 'three hex digits take two bytes');
  });

  it('counts a typed array by its bytes', () => {
    assert.equal(estimateSize(new Uint8Array(10)), 74);
    assert.equal(estimateSize(new Float64Array(2)), 80);
  });

  it('counts arrays and objects as a header, a reference per field, and the fields', () => {
    assert.equal(estimateSize([]), 16);
    assert.equal(estimateSize({}), 16);
    assert.equal(estimateSize([1, 'xy']), 16 + 16 + 8 + 20);
    assert.equal(estimateSize({ a: 1, b: 'xy' }), 16 + 16 + 8 + 20);
  });

  it('counts a sparse array by its length, holes as undefined', () => {
    assert.equal(estimateSize(new Array(3)), 16 + 24 + 24);
    const sparse: unknown[] = [1];
    sparse[2] = 'xy';
    assert.equal(estimateSize(sparse), 16 + 24 + 8 + 8 + 20);
  });

  it('looks three levels deep; deeper values count as one reference', () => {
    assert.equal(estimateSize([[[[1]]]]), 24 + 24 + 24 + 8);
    assert.equal(estimateSize({ a: { b: { c: { d: 'long string' } } } }), 24 + 24 + 24 + 8);
  });

  it('looks at 32 fields and counts the rest at the average of those', () => {
    const array: unknown[] = Array.from({ length: 33 }, () => 1);
    array[32] = 'x'.repeat(100);
    // 32 numbers seen (256 bytes), scaled to 33 fields: 264; the string is never looked at.
    assert.equal(estimateSize(array), 16 + 8 * 33 + 264);
    const object: Record<string, unknown> = {};
    for (let i = 0; i < 32; i++) object[`f${i}`] = 1;
    object.last = 'x'.repeat(100);
    assert.equal(estimateSize(object), 16 + 8 * 33 + 264);
    assert.equal(estimateSize(Array.from({ length: 3 }, () => 'ab')), 16 + 24 + 60);
  });
});
