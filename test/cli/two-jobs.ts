// A job file for `weir run` tests that runs two jobs, each counting numbers per residue mod 3:
//   weir run [options] test/cli/two-jobs.ts together   both unbounded, started with executeAsync (the file returns)
//   weir run [options] test/cli/two-jobs.ts in-turn    'cli-first' counts 300 numbers, then 'cli-second' runs
import { countingJob } from './counting-pipeline.ts';

const mode = process.argv[2];
if (mode === 'together') {
  await countingJob(Infinity, 1_000, 'cli-first').executeAsync('cli-first');
  await countingJob(Infinity, 1_000, 'cli-second').executeAsync('cli-second');
} else if (mode === 'in-turn') {
  await countingJob(300, 0, 'cli-first').execute('cli-first');
  await countingJob(Infinity, 1_000, 'cli-second').execute('cli-second');
} else {
  throw new Error(`two-jobs.ts: the mode must be 'together' or 'in-turn', got '${mode}'`);
}
