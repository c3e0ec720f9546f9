// Exactly-once across worker threads: the crash job on 2 worker threads kills its process at seeded moments of its
// own progress (a record read, a sink pre-commit, a checkpoint completed or committed on one worker thread); the
// committed output equals an uninterrupted single-thread run's.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { OUTPUTS } from './crash-job.ts';
import { runSeededCrashTest } from './seeded-crash-test.ts';

const KILLS = 8;
const root = mkdtempSync(join(tmpdir(), 'weir-crash-workers-'));
after(() => rmSync(root, { recursive: true, force: true }));

describe('crash test at 2 worker threads: exactly-once under SIGKILL', () => {
  it(
    `commits exactly the uninterrupted output after ${KILLS} kills at seeded protocol moments`,
    { timeout: 900_000 },
    () =>
      runSeededCrashTest({
        root,
        count: 36_000,
        rate: 4_000,
        kills: KILLS,
        // Each thread reads one of the two source subtasks' halves (18,000 records), so 8 runs of at most 2,000
        // records each cannot finish the job.
        readCap: 2_000,
        seed: 20_261_201,
        // The kill switch is per worker thread, which runs one subtask of each of the five sinks.
        writers: OUTPUTS.length,
        backend: 'heap',
        workers: 2,
        minBig: 50,
      }),
  );
});
