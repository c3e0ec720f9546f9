// A rate-limited generator unioned with a one-line file into an exactly-once sink, run as its own program.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { StreamExecutionEnvironment } from '../../src/api/stream-execution-environment.ts';
import { FileSink } from '../../src/connectors/file-sink.ts';
import { DeliveryGuarantee } from '../../src/core/delivery-guarantee.ts';
import { FileSource } from '../../src/connectors/file-source.ts';
import { GeneratorSource } from '../../src/connectors/generator-source.ts';
import { WatermarkStrategy } from '../../src/time/watermark-strategy.ts';

interface Ev {
  id: number;
  ts: number;
}

const dir = process.argv[2]!;
mkdirSync(dir, { recursive: true });
writeFileSync(join(dir, 'in.jsonl'), '{"id":-1,"ts":0}\n');
const env = StreamExecutionEnvironment.create({ parallelism: 1 });
let completed = 0;
env.enableCheckpointing(50, {
  storage: join(dir, 'chk'),
  listener: (e) => void (e.type === 'completed' && completed++),
});
const ts = () => WatermarkStrategy.forMonotonousTimestamps<Ev>().withTimestampAssigner((e) => e.ts);
const gen = env.fromSource(
  GeneratorSource.of(20_000, (i): Ev => ({ id: i, ts: i }), { ratePerSecond: 10_000 }),
  ts(),
  'gen',
);
const file = env.fromSource(FileSource.jsonLines<Ev>([join(dir, 'in.jsonl')]), ts(), 'file');
gen
  .union(file)
  .sinkTo(FileSink.jsonLines(join(dir, 'out'), { deliveryGuarantee: DeliveryGuarantee.EXACTLY_ONCE }));
await env.execute('repro');
console.log(`DONE ${completed}`);
