// ChainedOutput: an operator's output whose one main edge is a chained hop into a one-input operator, compiled per operator class.
import type { Output } from '../operators/output.ts';
import type { SubtaskInput } from './subtask-input.ts';
import type { SubtaskOutput } from './subtask-output.ts';

/**
 * The output an operator emits into when its only main edge is forward into a one-input operator on this thread
 * whose channel never blocks: `collect` is the whole hop (both record counts, the sampled-batch check, the key
 * context, the consumer's `processElement`, the failure naming the consumer), and everything else (side outputs,
 * watermarks, idleness) goes through the subtask's {@link SubtaskOutput} as before.
 *
 * Why a class per consumer operator class, compiled from one source text (`new Function`): V8 keeps type feedback
 * per function, and a function shared by every hop (as `SubtaskOutput.collect` and `SubtaskInput.process` are) sees
 * every operator class of the process at its call into the operator, so that call stays an indirect call through a
 * builtin and nothing past it is inlined (the chain was then two calls per hop, one of them megamorphic). A copy of
 * the hop per consumer class sees one class: the producer's `this.output.collect` and the hop's
 * `this.operator.processElement` are then monomorphic, and V8 inlines the chain into the source's loop as far as
 * its inlining budget goes. The copies are cached by class, so a process compiles one per operator class it runs,
 * whatever the number of jobs or subtasks.
 */
export interface ChainedOutput<T> extends Output<T> {
  /** The subtask's output, which counts this output's records and carries everything but main records. */
  readonly output: SubtaskOutput<T>;
}

type ChainedOutputClass = new (output: SubtaskOutput<unknown>, input: SubtaskInput) => ChainedOutput<unknown>;

/**
 * The hop's source text, named after the consumer's class: kept short, because every byte of it inlined into a chain
 * costs V8's inlining budget. The text must differ per class (here by the class's number): V8 caches what
 * `new Function` compiles by its text, and equal texts would share one function, and with it one type feedback.
 */
const source = (name: string, number: number): string => `
return class ChainedOutputInto${name}${number} {
  constructor(output, input) {
    this.output = output;
    this.input = input;
    this.operator = input.operator;
    this.keySelector = input.keySelector;
    this.backend = input.backend;
    this.timing = input.timing;
  }
  collect(value, timestamp) {
    this.output.recordsOut++;
    const input = this.input;
    if (this.timing.active) {
      // A sampled batch: the input's own path counts the record and times the hop (rare, so compiled out of line).
      input.process(value, timestamp);
      return;
    }
    input.recordsIn++;
    try {
      const keySelector = this.keySelector;
      if (keySelector !== undefined) this.backend.setCurrentKey(keySelector(value));
      this.operator.processElement(value, timestamp);
    } catch (error) {
      throw input.subtask.failure(error, { value, timestamp });
    }
  }
  collectSide(tag, value, timestamp) {
    this.output.collectSide(tag, value, timestamp);
  }
  emitWatermark(watermark) {
    this.output.emitWatermark(watermark);
  }
  emitWatermarkStatus(idle) {
    this.output.emitWatermarkStatus(idle);
  }
};`;

/** Per consumer class: its compiled hop, or null where the process refuses to compile one (see below). */
const classes = new WeakMap<object, ChainedOutputClass | null>();
/** Classes compiled so far: numbers the texts, so no two are equal. */
let compiled = 0;

/**
 * The chained output from `output` into `input`, whose operator must take one input (`processElement`); undefined
 * when this process refuses to compile code from strings (`node --disallow-code-generation-from-strings`, a
 * hardening some deployments use): the operator then keeps emitting into the subtask's output, whose hop does the
 * same work through shared code, only slower.
 */
export function chainedOutput<T>(
  output: SubtaskOutput<T>,
  input: SubtaskInput,
): ChainedOutput<T> | undefined {
  const kind = input.operator.constructor as { readonly name: string };
  let Chained = classes.get(kind);
  if (Chained === undefined) {
    const name = /^[A-Za-z_$][\w$]*$/.test(kind.name) ? kind.name : 'Operator';
    Chained = compile(source(name, ++compiled));
    classes.set(kind, Chained);
  }
  return Chained === null
    ? undefined
    : (new Chained(output as SubtaskOutput<unknown>, input) as ChainedOutput<T>);
}

/** The class `text` returns, or null when code generation from strings is disallowed (an EvalError). */
function compile(text: string): ChainedOutputClass | null {
  try {
    return new Function(text)() as ChainedOutputClass;
  } catch (error) {
    if (error instanceof EvalError) return null;
    throw error;
  }
}
