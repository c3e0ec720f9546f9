// Ported NFACompilerTest: the states and edges a pattern compiles to, its windows and the compile-time checks.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Event, SubEvent } from '../../../../test/support/nfa-test-harness.ts';
import { AfterMatchSkipStrategy } from '../after-match-skip-strategy.ts';
import { Pattern } from '../../pattern/pattern.ts';
import type { State } from '../state.ts';
import { canProduceEmptyMatches, compilePattern, ENDING_STATE_NAME } from './nfa-compiler.ts';

const startFilter = (e: Event) => e.price > 2;
const endFilter = (e: Event) => e.name === 'end';

/** Each state as `name [type]: action -> target, ...` with its edges sorted (Flink compares them as sets). */
function describeStates(states: readonly State<Event>[]): string[] {
  return states
    .map((s) => {
      const edges = s.transitions.map((t) => `${t.action} -> ${t.targetState.name}`).sort();
      return `${s.name} [${s.stateType}]: ${edges.join(', ')}`;
    })
    .sort();
}

describe('NFA compiler (ported from Flink NFACompilerTest)', () => {
  it('testNFACompilerWithSimplePattern', () => {
    const p = Pattern.begin<Event>('start')
      .where(startFilter)
      .followedBy('middle')
      .subtype(SubEvent)
      .next('end')
      .where(endFilter);
    assert.deepEqual(describeStates(compilePattern(p).states), [
      `${ENDING_STATE_NAME} [Final]: `,
      `end [Normal]: TAKE -> ${ENDING_STATE_NAME}`,
      'middle [Normal]: IGNORE -> middle, TAKE -> end',
      'start [Start]: TAKE -> middle',
    ]);
  });

  it('testNFACompilerPatternNotFollowedByWithIn', () => {
    const p = Pattern.begin<Event>('start')
      .where(startFilter)
      .notFollowedBy('middle')
      .where(endFilter)
      .within(1);
    assert.deepEqual(describeStates(compilePattern(p).states), [
      `${ENDING_STATE_NAME} [Final]: `,
      'middle [Pending]: IGNORE -> middle, PROCEED -> middle:0',
      'middle:0 [Stop]: TAKE -> middle:0',
      'start [Start]: TAKE -> middle',
    ]);
  });

  it('testNoUnnecessaryStateCopiesCreated', () => {
    const p = Pattern.begin<Event>('start')
      .where(startFilter)
      .notFollowedBy('not')
      .where(startFilter)
      .followedBy('oneOrMore')
      .where(startFilter)
      .oneOrMore()
      .followedBy('end')
      .where(endFilter);
    assert.equal(compilePattern(p).states.filter((s) => s.name === 'end').length, 1);
  });

  it('testNFACompilerUniquePatternName / testNFACompilerPatternEndsWithNotFollowedBy / testSkipToNotExistsMatchingPattern', () => {
    assert.throws(
      () => compilePattern(Pattern.begin<Event>('start').followedBy('middle').followedBy('start')),
      { message: 'Duplicate pattern name: start. Names must be unique.' },
    );
    assert.throws(
      () => compilePattern(Pattern.begin<Event>('start').followedBy('middle').notFollowedBy('end')),
      { message: 'NotFollowedBy is not supported without windowTime as a last part of a Pattern!' },
    );
    assert.throws(
      () =>
        compilePattern(
          Pattern.begin<Event>('start', AfterMatchSkipStrategy.skipToLast('midd'))
            .next('middle')
            .oneOrMore()
            .optional()
            .next('end'),
        ),
      {
        message:
          "The pattern name specified in AfterMatchSkipStrategy can not be found in the given Pattern: 'midd'",
      },
    );
    assert.throws(() => compilePattern({} as Pattern<Event>), { message: 'CEP needs a Pattern' });
  });

  it('a pattern ending in notFollowedBy compiles with a within of its own stage or of the pattern', () => {
    const stage = Pattern.begin<Event>('start').notFollowedBy('end').within(5, 'PREVIOUS_AND_CURRENT');
    assert.equal(compilePattern(stage).windowTimes.get('end'), 5);
    assert.equal(compilePattern(Pattern.begin<Event>('start').within(5).notFollowedBy('end')).windowTime, 5);
  });

  it("names the final state '$endState$' and a stage's further states name:0, name:1, ...", () => {
    const p = Pattern.begin<Event>('a').followedBy('b').times(3, { windowTime: 7 });
    assert.equal(ENDING_STATE_NAME, '$endState$');
    assert.deepEqual(describeStates(compilePattern(p).states), [
      '$endState$ [Final]: ',
      'a [Start]: TAKE -> b:1',
      'b [Normal]: IGNORE -> b, TAKE -> $endState$',
      'b:0 [Normal]: IGNORE -> b:0, TAKE -> b',
      'b:1 [Normal]: IGNORE -> b:1, TAKE -> b:0',
    ]);
    // Flink records a times stage's window on its copies only, not on the state with the plain stage name
    assert.deepEqual(
      [...compilePattern(p).windowTimes],
      [
        ['b:0', 7],
        ['b:1', 7],
      ],
    );
  });

  it("records a stage's previous-to-current window on the states that take events, not on ignore states", () => {
    const optional = Pattern.begin<Event>('a')
      .followedBy('b')
      .optional()
      .within(5, 'PREVIOUS_AND_CURRENT')
      .followedBy('c');
    assert.deepEqual(describeStates(compilePattern(optional).states), [
      '$endState$ [Final]: ',
      'a [Start]: TAKE -> b',
      'b [Normal]: IGNORE -> b:0, PROCEED -> c, TAKE -> c',
      'b:0 [Normal]: IGNORE -> b:0, TAKE -> c',
      'c [Normal]: IGNORE -> c, TAKE -> $endState$',
    ]);
    assert.deepEqual([...compilePattern(optional).windowTimes], [['b', 5]]);
    // oneOrMore: the loop state b, its ignore state b:0, and the entry state b:1 (a copy: it gets the window)
    const loop = Pattern.begin<Event>('a').followedBy('b').oneOrMore({ windowTime: 4 }).followedBy('c');
    assert.deepEqual(describeStates(compilePattern(loop).states), [
      '$endState$ [Final]: ',
      'a [Start]: TAKE -> b:1',
      'b [Normal]: IGNORE -> b:0, PROCEED -> c, TAKE -> b',
      'b:0 [Normal]: IGNORE -> b:0, TAKE -> b',
      'b:1 [Normal]: IGNORE -> b:1, TAKE -> b',
      'c [Normal]: IGNORE -> c, TAKE -> $endState$',
    ]);
    assert.deepEqual([...compilePattern(loop).windowTimes], [['b:1', 4]]);
  });

  it('notNext: PROCEED on a non-matching event (IGNORE into the final state at the end), a Stop state on a matching one', () => {
    const atEnd = Pattern.begin<Event>('a').notNext('b');
    assert.deepEqual(describeStates(compilePattern(atEnd).states), [
      '$endState$ [Final]: ',
      'a [Start]: TAKE -> b',
      'b [Normal]: IGNORE -> $endState$, PROCEED -> b:0',
      'b:0 [Stop]: TAKE -> b:0',
    ]);
    const inMiddle = Pattern.begin<Event>('a').notNext('b').within(5, 'PREVIOUS_AND_CURRENT').followedBy('c');
    assert.deepEqual(describeStates(compilePattern(inMiddle).states), [
      '$endState$ [Final]: ',
      'a [Start]: TAKE -> b',
      'b [Normal]: PROCEED -> b:0, PROCEED -> c',
      'b:0 [Stop]: TAKE -> b:0',
      'c [Normal]: IGNORE -> c, TAKE -> $endState$',
    ]);
    assert.deepEqual([...compilePattern(inMiddle).windowTimes], [['b', 5]]);
  });

  it('a trailing notFollowedBy gets its Pending state only from a window known when it is compiled (its own or its stage), as Flink', () => {
    // within on an earlier stage: the window is found only after the last stage was compiled, so no Pending state
    assert.deepEqual(
      describeStates(compilePattern(Pattern.begin<Event>('a').within(5).notFollowedBy('b')).states),
      ['$endState$ [Final]: ', 'a [Start]: TAKE -> $endState$'],
    );
    assert.deepEqual(
      describeStates(compilePattern(Pattern.begin<Event>('a').notFollowedBy('b').within(5)).states),
      [
        '$endState$ [Final]: ',
        'a [Start]: TAKE -> b',
        'b [Pending]: IGNORE -> b, PROCEED -> b:0',
        'b:0 [Stop]: TAKE -> b:0',
      ],
    );
  });

  it('copies the states after an optional stage without the PROCEED edges of the notFollowedBy before it, one Stop state per negative stage', () => {
    const p = Pattern.begin<Event>('a')
      .notFollowedBy('b')
      .followedBy('c')
      .optional()
      .followedBy('d')
      .optional()
      .followedBy('e');
    assert.deepEqual(describeStates(compilePattern(p).states), [
      '$endState$ [Final]: ',
      'a [Start]: TAKE -> c',
      'b [Stop]: TAKE -> b',
      'c [Normal]: IGNORE -> c:0, PROCEED -> b, PROCEED -> d, TAKE -> d:1',
      'c:0 [Normal]: IGNORE -> c:0, PROCEED -> b, TAKE -> d:1',
      'd [Normal]: IGNORE -> d:0, PROCEED -> b, PROCEED -> e, TAKE -> e:0',
      'd:0 [Normal]: IGNORE -> d:0, PROCEED -> b, TAKE -> e:0',
      // d:1 and e:1 are the copies taken after c took an event: b no longer applies
      'd:1 [Normal]: IGNORE -> d:0, PROCEED -> e:1, TAKE -> e:0',
      'e [Normal]: IGNORE -> e, PROCEED -> b, TAKE -> $endState$',
      'e:0 [Normal]: IGNORE -> e:0, TAKE -> $endState$',
      'e:1 [Normal]: IGNORE -> e:1, TAKE -> $endState$',
    ]);
  });

  it('group patterns: stage names are unique across groups, a group after next keeps strict contiguity at its head', () => {
    assert.throws(
      () =>
        compilePattern(Pattern.begin<Event, Pattern<Event>>(Pattern.begin<Event>('a').next('b')).next('a')),
      {
        message: 'Duplicate pattern name: a. Names must be unique.',
      },
    );
    const p = Pattern.begin<Event>('x').next(Pattern.begin<Event>('a').followedBy('b')).followedBy('c');
    assert.deepEqual(describeStates(compilePattern(p).states), [
      '$endState$ [Final]: ',
      'a [Normal]: TAKE -> b',
      'b [Normal]: IGNORE -> b, TAKE -> c',
      'c [Normal]: IGNORE -> c, TAKE -> $endState$',
      'x [Start]: TAKE -> a',
    ]);
  });

  it('a looping optional group: an entry state into the loop, the loop head without an ignore state of its own', () => {
    const p = Pattern.begin<Event>('x')
      .followedBy(Pattern.begin<Event>('a').followedBy('b'))
      .oneOrMore()
      .optional()
      .followedBy('c');
    assert.deepEqual(describeStates(compilePattern(p).states), [
      '$endState$ [Final]: ',
      'GroupPattern [Normal]: PROCEED -> a',
      'a [Normal]: IGNORE -> a, PROCEED -> c, TAKE -> b',
      'a:0 [Normal]: IGNORE -> a:1, PROCEED -> c, TAKE -> b:0',
      'a:1 [Normal]: IGNORE -> a:1, TAKE -> b:0',
      'b [Normal]: IGNORE -> b, TAKE -> GroupPattern',
      'b:0 [Normal]: IGNORE -> b:0, TAKE -> a',
      'c [Normal]: IGNORE -> c, TAKE -> $endState$',
      'x [Start]: TAKE -> a:0',
    ]);
  });

  it('testCheckingEmptyMatches', () => {
    assert.equal(canProduceEmptyMatches(Pattern.begin('a').optional()), true);
    assert.equal(canProduceEmptyMatches(Pattern.begin('a').oneOrMore().optional()), true);
    assert.equal(
      canProduceEmptyMatches(Pattern.begin('a').oneOrMore().optional().next('b').optional()),
      true,
    );
    assert.equal(canProduceEmptyMatches(Pattern.begin('a')), false);
    assert.equal(canProduceEmptyMatches(Pattern.begin('a').optional().next('b')), false);
    assert.equal(canProduceEmptyMatches(Pattern.begin('a').oneOrMore()), false);
    assert.equal(canProduceEmptyMatches(Pattern.begin('a').oneOrMore().next('b').optional()), false);
  });

  it('testWindowTimeCorrectlySet / testMultipleWindowTimeWithZeroLength: the smallest within wins', () => {
    const p = (second: number) =>
      Pattern.begin<Event>('start')
        .followedBy('middle')
        .within(10_000)
        .followedBy('then')
        .within(second)
        .followedBy('end');
    assert.equal(compilePattern(p(20_000)).windowTime, 10_000);
    assert.equal(compilePattern(p(0)).windowTime, 0);
    assert.equal(compilePattern(Pattern.begin<Event>('start').followedBy('end')).windowTime, 0);
  });

  it('testWindowTimesCorrectlySet', () => {
    const p = Pattern.begin<Event>('start')
      .followedBy('middle')
      .within(10_000, 'PREVIOUS_AND_CURRENT')
      .followedBy('then')
      .within(20_000, 'PREVIOUS_AND_CURRENT')
      .followedBy('end');
    assert.deepEqual(
      new Map(compilePattern(p).windowTimes),
      new Map([
        ['middle', 10_000],
        ['then', 20_000],
      ]),
    );
  });

  it('testCheckPatternWindowTimes', () => {
    const p = (last: number) =>
      Pattern.begin<Event>('start')
        .followedBy('middle')
        .within(3000, 'PREVIOUS_AND_CURRENT')
        .followedBy('then')
        .within(1000, 'PREVIOUS_AND_CURRENT')
        .followedBy('end')
        .within(last);
    assert.throws(() => compilePattern(p(2)), {
      message:
        'The window length between the previous and current event cannot be larger than the window length between the first and last event for a Pattern.',
    });
    // equal lengths are allowed
    assert.equal(compilePattern(p(3000)).windowTime, 3000);
  });
});
