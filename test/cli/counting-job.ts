// A job file for `weir run` tests: counts numbers per residue mod 3 and prints every running count.
//   weir run [options] test/cli/counting-job.ts <count> <records per second, 0: unlimited>
import { countingJob } from './counting-pipeline.ts';

const [count, rate] = process.argv.slice(2).map(Number);
await countingJob(count!, rate!).execute('cli-counting');
