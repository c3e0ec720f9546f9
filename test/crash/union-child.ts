// The union crash test's child: a generator unioned with a short file; kills itself at the moment it is told.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { StreamExecutionEnvironment } from '../../src/api/stream-execution-environment.ts';
import { loadLatestCheckpoint, loadSnapshotDirectory } from '../../src/execution/checkpoint-storage.ts';
import { RestartStrategies } from '../../src/execution/restart-strategies.ts';
import { FileSink } from '../../src/connectors/file-sink.ts';
import { DeliveryGuarantee } from '../../src/core/delivery-guarantee.ts';
import { FileSource } from '../../src/connectors/file-source.ts';
import { GeneratorSource } from '../../src/connectors/generator-source.ts';
import { WatermarkStrategy } from '../../src/time/watermark-strategy.ts';

interface Ev {
  id: number;
  ts: number;
}

/**
 * Where to die, read from observable progress, never from a clock:
 * - `mid:<c>:<k>`: at the k-th record after this run's c-th checkpoint was triggered (during barrier injection,
 *   alignment or the write, or just after it completed);
 * - `final-triggered`: when the final checkpoint (every source ended) is triggered, before it is written;
 * - `final-completed`: when the final checkpoint is durable, before the sinks commit it;
 * - `none`: run to the end.
 */
const [outDir, checkpointDir, inputDir, count, rate, plan] = process.argv.slice(2);
const [kind, c, k] = plan!.split(':');
const die = (): never => {
  process.kill(process.pid, 'SIGKILL');
  throw new Error('unreachable');
};

if (!existsSync(join(inputDir!, 'in.jsonl'))) {
  mkdirSync(inputDir!, { recursive: true });
  writeFileSync(join(inputDir!, 'in.jsonl'), '{"id":-1,"ts":0}\n');
}
let triggered = 0;
let countdown = -1;
const env = StreamExecutionEnvironment.create({ parallelism: 2 });
env.enableCheckpointing(40, {
  storage: checkpointDir!,
  retained: 2,
  listener: (e) => {
    if (e.type === 'triggered') {
      if (e.final && kind === 'final-triggered') die();
      if (kind === 'mid' && ++triggered === Number(c)) countdown = Number(k);
    }
    if (e.type === 'completed' && kind === 'final-completed') {
      const ops = loadSnapshotDirectory(e.path).metadata.operators;
      if (Object.values(ops).every((op) => op.finished.every(Boolean))) die();
    }
  },
});
env.setRestartStrategy(RestartStrategies.noRestart());
const ts = () => WatermarkStrategy.forMonotonousTimestamps<Ev>().withTimestampAssigner((e) => e.ts);
const gen = env
  .fromSource(
    GeneratorSource.of(Number(count), (i): Ev => ({ id: i, ts: i }), { ratePerSecond: Number(rate) }),
    ts(),
    'gen',
  )
  .uid('gen');
const file = env
  .fromSource(FileSource.jsonLines<Ev>([join(inputDir!, 'in.jsonl')]), ts(), 'file')
  .uid('file');
gen
  .union(file)
  .keyBy((e) => e.id % 8)
  .map((e) => {
    if (countdown >= 0 && countdown-- === 0) die();
    return e;
  }, 'check')
  .uid('check')
  .sinkTo(FileSink.jsonLines(outDir!, { deliveryGuarantee: DeliveryGuarantee.EXACTLY_ONCE }))
  .uid('sink');

const latest = loadLatestCheckpoint(checkpointDir!);
const fileFinished = latest?.snapshot.operators['file']?.finished.every(Boolean) ?? false;
process.stdout.write(
  `RUNNING ${latest?.metadata.checkpointId ?? 0} ${fileFinished ? 'file-finished' : 'file-running'}\n`,
);
await env.execute('union-crash', latest !== undefined ? { restoreFrom: latest.snapshot } : {});
process.stdout.write('DONE\n');
