// The crash test's child process: runs the crash job, resuming from the latest checkpoint, until done or killed
// (by the parent, or by itself at the moment of its kill plan).
import { StreamExecutionEnvironment } from '../../src/api/stream-execution-environment.ts';
import { loadLatestCheckpoint } from '../../src/execution/checkpoint-storage.ts';
import { RestartStrategies } from '../../src/execution/restart-strategies.ts';
import { LmdbStateBackend } from '../../src/state/lmdb/lmdb-state-backend.ts';
import { buildCrashJob } from './crash-job.ts';
import { KillSwitch, parseKillPlan } from './kill-switch.ts';

const [outDir, checkpointDir, stateDir, count, rate, backend, cep, workers, plan, readCap] =
  process.argv.slice(2);
// With a workers argument of 2, every worker thread imports this module again and runs its slot of the job.
const env = StreamExecutionEnvironment.create({ parallelism: 2, workers: Number(workers ?? 1) });
env.enableCheckpointing(40, { storage: checkpointDir!, retained: 2 });
env.setRestartStrategy(RestartStrategies.noRestart());
if (backend === 'lmdb') env.setStateBackend(new LmdbStateBackend({ path: stateDir! }));
await buildCrashJob(
  env,
  outDir!,
  Number(count),
  Number(rate) > 0 ? Number(rate) : undefined,
  cep !== 'no-cep',
  plan === undefined ? undefined : new KillSwitch(parseKillPlan(plan), Number(readCap ?? Infinity)),
);
const latest = loadLatestCheckpoint(checkpointDir!);
process.stdout.write(`RUNNING ${latest?.metadata.checkpointId ?? 0}\n`);
await env.execute('crash-job', latest !== undefined ? { restoreFrom: latest.snapshot } : {});
process.stdout.write('DONE\n');
