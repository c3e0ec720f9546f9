// A job file for `weir run --workers` tests: prints, for each number, the thread its map subtask ran on.
//   weir run [options] test/cli/threads-job.ts <count>
import { threadId } from 'node:worker_threads';
import { StreamExecutionEnvironment } from '../../src/api/stream-execution-environment.ts';
import { GeneratorSource } from '../../src/connectors/generator-source.ts';

const [count] = process.argv.slice(2).map(Number);
const env = StreamExecutionEnvironment.create();
env
  .fromSource(
    GeneratorSource.of(count!, (n) => n),
    undefined,
    'numbers',
  )
  .setParallelism(1)
  .rebalance()
  .map((n) => `${n} thread ${threadId}`)
  .name('tag-thread')
  .print();
await env.execute('cli-threads');
