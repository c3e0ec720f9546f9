// A chained job run in a child process started with --disallow-code-generation-from-strings: prints its output.
import { CollectSink, StreamExecutionEnvironment } from '../../src/index.ts';

const env = StreamExecutionEnvironment.create({ parallelism: 1 });
const sink = new CollectSink<number>();
env
  .fromElements(1, 2, 3, 4, 5)
  .map((x) => x * 10)
  .filter((x) => x !== 30)
  .sinkTo(sink);
await env.execute('chained without code generation');
console.log(JSON.stringify(sink.values));
