// The Kafka crash test's child process: runs the job from the latest checkpoint until done or its kill moment.
import { StreamExecutionEnvironment } from '../../src/api/stream-execution-environment.ts';
import { loadLatestCheckpoint } from '../../src/execution/checkpoint-storage.ts';
import { RestartStrategies } from '../../src/execution/restart-strategies.ts';
import { buildKafkaCrashJob } from './kafka-crash-job.ts';
import { KillSwitch, parseKillPlan } from '../crash/kill-switch.ts';

const [bootstrap, input, output, transactionalIdPrefix, checkpointDir, plan, readCap] = process.argv.slice(2);
const env = StreamExecutionEnvironment.create({ parallelism: 2 });
env.enableCheckpointing(25, { storage: checkpointDir!, retained: 2 });
env.setRestartStrategy(RestartStrategies.noRestart());
await buildKafkaCrashJob(
  env,
  { bootstrap: bootstrap!, input: input!, output: output!, transactionalIdPrefix: transactionalIdPrefix! },
  new KillSwitch(parseKillPlan(plan!), Number(readCap)),
);
const latest = loadLatestCheckpoint(checkpointDir!);
process.stdout.write(`RUNNING ${latest?.metadata.checkpointId ?? 0}\n`);
await env.execute('kafka-crash-job', latest !== undefined ? { restoreFrom: latest.snapshot } : {});
process.stdout.write('DONE\n');
