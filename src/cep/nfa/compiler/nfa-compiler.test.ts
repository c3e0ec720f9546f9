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
      const type = s.isStart()
        ? 'Start'
        : s.isFinal()
          ? 'Final'
          : s.isStop()
            ? 'Stop'
            : s.isPending()
              ? 'Pending'
              : 'Normal';
      const edges = s.transitions.map((t) => `${t.action} -> ${t.targetState.name}`).sort();
      return `${s.name} [${type}]: ${edges.join(', ')}`;
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

  it('testCheckingEmptyMatches', () => {
    assert.equal(canProduceEmptyMatches(Pattern.begin('a').optional()), true);
    assert.equal(canProduceEmptyMatches(Pattern.begin('a').oneOrMore().optional()), true);
    assert.equal(
      canProduceEmptyMatches(Pattern.begin('a').oneOrMore().optional().next('b').optional()),
      true,
    );
    assert.equal(canProduceEmptyMatches(Pattern.begin('a')), false);
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
