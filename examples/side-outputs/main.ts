// Runs the side-output job on a few numbers and prints the three streams.
import { StreamExecutionEnvironment } from '../../src/index.ts';
import { splitStream } from './split-stream.ts';

const env = StreamExecutionEnvironment.create();
const { main, negative, large } = splitStream(env.fromElements(5, -3, 250, 42, -1, 101, 7));
main.print('main');
negative.print('negative');
large.print('large');
await env.execute('side outputs');
