// A job file for `weir run` tests: its source awaits a promise that never settles (a socket that never sends).
import { StreamExecutionEnvironment } from '../../src/api/stream-execution-environment.ts';

const env = StreamExecutionEnvironment.create();
env
  .fromAsyncIterable(async function* () {
    // Tells the test the source now waits (standard output is the job's).
    console.log('waiting');
    await new Promise<void>(() => {});
    yield 'never';
  }, 'silent')
  .print();
await env.execute('cli-waiting');
