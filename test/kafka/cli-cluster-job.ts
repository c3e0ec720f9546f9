// The cluster-mode test job as a job file for `weir run --cluster <bootstrap> --job-id <id>`: the file sets no
// cluster option, the launcher gives it. Arguments: <bootstrap> <input topic> <output topic>.
import { StreamExecutionEnvironment } from '../../src/index.ts';
import { buildClusterTestJob } from './cluster-job.ts';

const [bootstrapServers, input, output] = process.argv.slice(2);
const env = StreamExecutionEnvironment.create({ parallelism: 4, metrics: false });
buildClusterTestJob(env, {
  bootstrapServers: bootstrapServers!,
  input: input!,
  output: output!,
  bounded: false,
});
await env.execute('cluster-test');
