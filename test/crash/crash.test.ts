// The proof of exactly-once: the crash job kills itself at 20 seeded moments of the exactly-once protocol; the
// committed output equals a clean run's.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { OUTPUTS } from './crash-job.ts';
import { runSeededCrashTest } from './seeded-crash-test.ts';

const KILLS = 20;
const root = mkdtempSync(join(tmpdir(), 'weir-crash-'));
after(() => rmSync(root, { recursive: true, force: true }));

describe('crash test: exactly-once under SIGKILL', () => {
  it(
    `commits exactly the uninterrupted output after ${KILLS} kills at seeded protocol moments`,
    { timeout: 900_000 },
    () =>
      runSeededCrashTest({
        root,
        count: 40_000,
        rate: 5_000,
        kills: KILLS,
        readCap: 3_000,
        seed: 20_240_601,
        // Five outputs at parallelism 2, all on this thread.
        writers: OUTPUTS.length * 2,
        backend: 'lmdb',
        workers: 1,
        minBig: 100,
      }),
  );
});
