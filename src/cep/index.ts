// The public API of Weir's complex event processing (FlinkCEP): patterns, skip strategies, CEP and pattern streams.

// Patterns
export { Pattern, GroupPattern } from './pattern/pattern.ts';
export type { PatternMatch, QuantifierOptions, SubtypeSelector } from './pattern/pattern.ts';
export type { ConditionContext, IterativeCondition } from './pattern/conditions.ts';
export { WithinType } from './pattern/within-type.ts';
export { Quantifier, Times } from './pattern/quantifier.ts';
export type { ConsumingStrategy, QuantifierProperty } from './pattern/quantifier.ts';
export { MalformedPatternError } from './pattern/malformed-pattern-error.ts';
export { AfterMatchSkipStrategy } from './nfa/after-match-skip-strategy.ts';

// Applying patterns
export { CEP } from './cep.ts';
export { PatternStream } from './pattern-stream.ts';
export type {
  PatternFlatSelectFunction,
  PatternProcessContext,
  PatternProcessFunction,
  PatternSelectFunction,
  PatternTimeoutFunction,
  TimedOutPartialMatchHandler,
} from './functions.ts';
export type { EventComparator } from './operator/cep-operator.ts';

// Engine (for tools, tests and custom operators)
export { compilePattern, canProduceEmptyMatches } from './nfa/compiler/nfa-compiler.ts';
export { NFA } from './nfa/nfa.ts';
export type { Match, TimedOutMatch } from './nfa/nfa.ts';
export { SharedBuffer } from './nfa/shared-buffer/shared-buffer.ts';
export { SharedBufferAccessor } from './nfa/shared-buffer/shared-buffer-accessor.ts';
export { CepOperator } from './operator/cep-operator.ts';
