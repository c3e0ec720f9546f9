// A job whose only source never settles its read: run as a child process, it must fail with a stall error, not exit 13.
import { StreamExecutionEnvironment } from '../../src/api/stream-execution-environment.ts';
import { RestartStrategies } from '../../src/execution/restart-strategies.ts';
import type { Source } from '../../src/core/source.ts';

const stuck: Source<number> = {
  boundedness: 'bounded',
  // A reader whose read never completes and schedules nothing: the event loop empties while the job waits.
  createReader: () => ({ pollNext: () => new Promise(() => {}) }),
};
const env = StreamExecutionEnvironment.create({ parallelism: 1 });
env.fromSource(stuck, undefined, 'stuck').print();
if (process.argv.includes('--checkpointing')) {
  // The checkpoint timer does not hold the event loop open, so this handle does until checkpoint 1 is triggered
  // (an observed event, not a delay); its barrier then waits behind the read and the loop empties.
  const untilTriggered = setInterval(() => {}, 60_000);
  env.enableCheckpointing(50, {
    storage: process.argv[process.argv.indexOf('--checkpointing') + 1]!,
    listener: (event) => {
      if (event.type === 'triggered') clearInterval(untilTriggered);
    },
  });
  env.setRestartStrategy(RestartStrategies.noRestart());
}
try {
  await env.execute('stall');
  console.log('FINISHED');
} catch (error) {
  console.log(`FAILED ${(error as Error).name}: ${(error as Error).message}`);
  process.exitCode = 1;
}
