// The first values that keep V8's hidden classes: equal to the plain values, held as V8 will hold the later ones.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { DOUBLE_ZERO, emptyTaggedArray } from './stable-hidden-classes.ts';

setFlagsFromString('--allow-natives-syntax');
const isSmallInteger = new Function('x', 'return %IsSmi(x)') as (x: unknown) => boolean;
const elementsKind = new Function(
  'a',
  'return %HasObjectElements(a) ? "any" : %HasSmiElements(a) ? "small integer" : "other"',
) as (a: unknown) => string;
const sameHiddenClass = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (
  a: unknown,
  b: unknown,
) => boolean;

describe('stable hidden classes', () => {
  it('DOUBLE_ZERO is +0, held as a double', () => {
    assert.ok(Object.is(DOUBLE_ZERO, 0));
    assert.equal(String(DOUBLE_ZERO), '0');
    assert.equal(isSmallInteger(DOUBLE_ZERO), false);
  });

  it('a field first set to DOUBLE_ZERO keeps its hidden class when a fraction is stored', () => {
    class Plain {
      ms = 0;
    }
    class Double {
      ms = DOUBLE_ZERO;
    }
    const plainBefore = new Plain();
    const plain = new Plain();
    plain.ms += 0.25;
    const doubleBefore = new Double();
    const double = new Double();
    double.ms += 0.25;
    assert.deepEqual(
      { plain: sameHiddenClass(plainBefore, plain), double: sameHiddenClass(doubleBefore, double) },
      { plain: false, double: true },
    );
  });

  it('the empty array holds any values from the start, where a literal holds small integers', () => {
    assert.deepEqual([elementsKind([]), elementsKind(emptyTaggedArray())], ['small integer', 'any']);
    assert.equal(emptyTaggedArray().length, 0);
    const used = emptyTaggedArray<object>();
    used.push({});
    assert.ok(sameHiddenClass(used, emptyTaggedArray()));
  });
});
