// The SIGTERM test's child process: runs the unbounded counting job until SIGTERM stops it with a savepoint.
import { StreamExecutionEnvironment } from '../../src/api/stream-execution-environment.ts';
import type { SinkWriter } from '../../src/core/sink.ts';
import { buildCountingJob, type Count } from './counting-job.ts';

const [savepointDir] = process.argv.slice(2);
const env = StreamExecutionEnvironment.create();
let seen = 0;
buildCountingJob(env, Number.POSITIVE_INFINITY, {
  createWriter: (): SinkWriter<Count> => ({
    write() {
      // Tell the parent the job is under way, once.
      if (++seen === 1_000) process.stdout.write('RUNNING\n');
    },
  }),
});
const result = await env.execute('counting', { savepointOnSigterm: savepointDir! });
process.stdout.write(`STOPPED ${result.stoppedWithSavepoint}\n`);
