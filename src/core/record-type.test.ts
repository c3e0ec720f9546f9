// Types.record and Types.recordFromPairs: the same declared type from a literal or from pairs, and bad fields refused.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Types } from './record-type.ts';

describe('Types.recordFromPairs', () => {
  it('declares the same fields, in order, as the literal form', () => {
    const fromPairs = Types.recordFromPairs(['id', 'number'], ['name', 'string'], ['ok', 'boolean']);
    const fromLiteral = Types.record({ id: 'number', name: 'string', ok: 'boolean' });
    assert.deepEqual(fromPairs.fields, fromLiteral.fields);
    assert.equal(fromPairs.describe(), '{id: number, name: string, ok: boolean}');
    assert.equal(fromPairs.numericFields, 2);
    assert.equal(fromPairs.stringFields, 1);
    // The record type is inferred from the pairs.
    const record: typeof fromPairs extends { __record?: infer T } ? T : never = {
      id: 1,
      name: 'a',
      ok: true,
    };
    assert.equal(record.name, 'a');
  });

  it('refuses a field given twice, and a field of no flat type', () => {
    assert.throws(
      () => Types.recordFromPairs(['id', 'number'], ['id', 'string']),
      /^TypeError: Types.recordFromPairs: field 'id' is given twice$/,
    );
    assert.throws(
      () => Types.recordFromPairs(['id', 'date' as 'number']),
      /Types.record: field 'id' has type "date"; a flat record's fields are 'number', 'string' or 'boolean'/,
    );
    assert.throws(() => Types.recordFromPairs(), /Types.record needs at least one field/);
  });
});
