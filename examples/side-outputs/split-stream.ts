// The side-output job: one stream split into a main output and two side outputs by a ProcessFunction.
import { OutputTag, type DataStream } from '../../src/index.ts';

/** Numbers below zero go to one side output, numbers above 100 to another; the rest stay on the main output. */
export const negativeTag = new OutputTag<number>('negative', 'number');
export const largeTag = new OutputTag<string>('large', 'string');

export function splitStream(numbers: DataStream<number>): {
  main: DataStream<number>;
  negative: DataStream<number>;
  large: DataStream<string>;
} {
  const main = numbers.process<number>(
    {
      processElement(n, ctx, out) {
        if (n < 0) ctx.output(negativeTag, n);
        else if (n > 100) ctx.output(largeTag, `large: ${n}`);
        else out.collect(n);
      },
    },
    'Split',
  );
  return { main, negative: main.getSideOutput(negativeTag), large: main.getSideOutput(largeTag) };
}
