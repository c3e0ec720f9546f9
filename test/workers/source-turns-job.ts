// A job on two worker threads whose bounded source's subtask 1 makes its records slowly (each one spins), so that
// subtask 0, alone on the other worker, would run to its end first: every record carries the wall-clock time it was
// made, and the main-thread sink keeps them. Each worker imports this module.
import { StreamExecutionEnvironment } from '../../src/api/stream-execution-environment.ts';
import { GeneratorSource } from '../../src/connectors/generator-source.ts';

/** Records in all, half per source subtask. */
export const COUNT = 8_000;
/** Records per poll of a source subtask. */
export const BATCH = 50;
/** What subtask 1 spends on each of its records (ms of wall time): 4,000 of them take at least 0.2 s. */
const SPIN_MS = 0.05;

export interface Made {
  readonly i: number;
  /** Date.now() when the record was made: one clock for every thread of the process. */
  readonly at: number;
}

const received: Made[] = [];
const env = StreamExecutionEnvironment.create({ parallelism: 2, workers: 2, jobModule: import.meta.url });
env
  .fromSource(
    GeneratorSource.of(
      COUNT,
      (i): Made => {
        // Subtask s of 2 makes the indices s, s + 2, ...
        if (i % 2 === 1) {
          const until = performance.now() + SPIN_MS;
          while (performance.now() < until);
        }
        return { i, at: Date.now() };
      },
      { batchSize: BATCH },
    ),
    undefined,
    'numbers',
  )
  .sinkTo({ runsOnMainThread: true, createWriter: () => ({ write: (made: Made) => received.push(made) }) });

/** On the main thread the job's result; in a worker this import never settles. */
export const job = await env.execute('source-turns');
/** The records the sink received (on the main thread). */
export const result = received;
