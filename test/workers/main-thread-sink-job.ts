// A job on 2 worker threads whose sink runs on the main thread and is still receiving when both workers report
// that they finished: each worker's source emits its whole share in one poll and ends, and the sink's first write
// waits until both have, so each worker's batches after the first 4 (its credits) and its end of input wait there
// for this thread's credit while the worker reports that its subtasks finished. Each worker imports this module.
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StreamExecutionEnvironment } from '../../src/api/stream-execution-environment.ts';
import { GeneratorSource } from '../../src/connectors/generator-source.ts';

/** Records in all: per worker more batches (16,384 records each) than the 4 credits of a channel. */
export const COUNT = 160_000;
// Worker threads share the process id: every thread of this job names the same files.
const lastEmitted = (subtask: number): string =>
  join(tmpdir(), `weir-main-thread-sink-${process.pid}-${subtask}`);

const received: number[] = [];
const env = StreamExecutionEnvironment.create({ parallelism: 2, workers: 2, jobModule: import.meta.url });
env
  .fromSource(
    GeneratorSource.of(
      COUNT,
      (i) => {
        // Subtask s of 2 emits s, s + 2, ...: its last index is COUNT - 2 + s.
        if (i >= COUNT - 2) writeFileSync(lastEmitted(i - (COUNT - 2)), '');
        return i;
      },
      { batchSize: COUNT },
    ),
    undefined,
    'numbers',
  )
  .map((i) => i * 2, 'double')
  .sinkTo({
    runsOnMainThread: true,
    createWriter: () => ({
      write: (value: number) => {
        if (received.length === 0) {
          // Holds this thread until both sources are done: observable events on other threads, with a deadline.
          const deadline = Date.now() + 60_000;
          for (const subtask of [0, 1]) {
            while (!existsSync(lastEmitted(subtask))) {
              if (Date.now() > deadline) throw new Error(`source ${subtask} never emitted its last record`);
            }
            rmSync(lastEmitted(subtask));
          }
        }
        received.push(value);
      },
    }),
  });

/** On the main thread the job's result; in a worker this import never settles. */
export const job = await env.execute('main-thread-sink');
/** The records the sink received (on the main thread). */
export const result = received;
