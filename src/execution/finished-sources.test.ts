// Checkpoints after some sources finished (FLIP-147): union, connect and side-output branches, restored mid-way.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { OutputTag } from '../core/output-tag.ts';
import type { DataStream } from '../api/data-stream.ts';
import { StreamExecutionEnvironment } from '../api/stream-execution-environment.ts';
import { FileSource } from '../connectors/file-source.ts';
import { GeneratorSource } from '../connectors/generator-source.ts';
import { WatermarkStrategy } from '../time/watermark-strategy.ts';
import { loadSnapshotDirectory } from './checkpoint-storage.ts';
import { RestartStrategies } from './restart-strategies.ts';
import { FileSink } from '../connectors/file-sink.ts';
import { DeliveryGuarantee } from '../core/delivery-guarantee.ts';
import { RecordingLogger } from '../../test/support/recording-logger.ts';
import { freshDirs } from '../../test/support/fresh-dirs.ts';
import { committedIds as committed } from '../../test/support/committed-lines.ts';

const fresh = freshDirs('weir-finished-sources-');

interface Ev {
  id: number;
  ts: number;
}

const timestamps = () => WatermarkStrategy.forMonotonousTimestamps<Ev>().withTimestampAssigner((e) => e.ts);

function range(from: number, to: number): number[] {
  const out: number[] = [];
  for (let i = from; i < to; i++) out.push(i);
  return out;
}

/** Writes `lines` JSON Lines events with ids -1, -2, ... into a fresh directory; returns the file. */
function inputFile(lines: number): string {
  const dir = fresh('in');
  mkdirSync(dir);
  const path = join(dir, 'in.jsonl');
  writeFileSync(
    path,
    range(1, lines + 1)
      .map((i) => `{"id":${-i},"ts":0}\n`)
      .join(''),
  );
  return path;
}

/** Whether the checkpoint written at `path` saw every subtask of operator `uid` finished. */
function finishedIn(path: string, uid: string): boolean {
  const op = loadSnapshotDirectory(path).metadata.operators[uid];
  return op !== undefined && op.finished.every(Boolean);
}

type Shape = 'union' | 'connect' | 'side outputs';

/** Records with ids from `count` on, held back until the failure is armed. */
const HELD = 3;

/** The injected failure: armed by the first checkpoint that saw the file source finished, fired once after it. */
class Failure {
  armed = false;
  fired = false;
  private arm!: () => void;
  /** Resolves once armed. */
  readonly whenArmed = new Promise<void>((resolve) => (this.arm = resolve));
  setArmed(): void {
    this.armed = true;
    this.arm();
  }
}

/**
 * The generated stream (`count` records, rate-limited so it usually outlives the file, and `HELD` more records
 * that wait until the failure is armed) joined with a short file source in one of three shapes, through a map that
 * fails once after a checkpoint in which the file source had finished, into an exactly-once file sink. Every id
 * must be committed exactly once.
 *
 * The held records are what makes the failure certain: on a loaded machine (slow fsyncs, late timers) the first
 * checkpoint that sees the file finished can complete after the last generated record passed the map, and no
 * record was then left to fail on. The held records reach the map only after that checkpoint, whenever it comes.
 */
function build(
  env: StreamExecutionEnvironment,
  shape: Shape,
  out: string,
  count: number,
  file: string,
  failure: Failure,
): void {
  const held = env
    .fromAsyncIterable(async function* (): AsyncIterable<Ev> {
      await failure.whenArmed;
      for (let i = count; i < count + HELD; i++) yield { id: i, ts: i };
    }, 'held')
    .uid('held');
  const gen = env
    .fromSource(
      GeneratorSource.of(count, (i): Ev => ({ id: i, ts: i }), { ratePerSecond: 8_000 }),
      timestamps(),
      'gen',
    )
    .uid('gen')
    .union(held);
  const lines = env.fromSource(FileSource.jsonLines<Ev>([file]), timestamps(), 'file').uid('file');
  let joined: DataStream<Ev>;
  if (shape === 'union') joined = gen.union(lines);
  else if (shape === 'connect') {
    joined = gen
      .connect(lines)
      .map({ map1: (e) => e, map2: (e) => e }, 'co-map')
      .uid('co-map');
  } else {
    const odd = new OutputTag<Ev>('odd');
    const split = lines
      .process<Ev>(
        {
          processElement(e, ctx, out) {
            if (e.id % 2 === 0) out.collect(e);
            else ctx.output(odd, e);
          },
        },
        'split',
      )
      .uid('split');
    joined = gen.union(split, split.getSideOutput(odd));
  }
  joined
    .map((e) => {
      if (failure.armed && !failure.fired) {
        failure.fired = true;
        throw new Error(`injected failure at record ${e.id}`);
      }
      return e;
    }, 'check')
    .uid('check')
    .sinkTo(FileSink.jsonLines(out, { deliveryGuarantee: DeliveryGuarantee.EXACTLY_ONCE }))
    .uid('sink');
}

describe('checkpoints after sources finished', () => {
  for (const shape of ['union', 'connect', 'side outputs'] as const) {
    for (const parallelism of [1, 2]) {
      it(`${shape} at parallelism ${parallelism}: restores mid-way from a checkpoint taken after the file finished`, async () => {
        const out = fresh('out');
        const storage = fresh('chk');
        const failure = new Failure();
        const logger = new RecordingLogger();
        const env = StreamExecutionEnvironment.create({ parallelism, logger });
        env.enableCheckpointing(20, {
          storage,
          listener: (e) => {
            // Fail once, right after the first checkpoint that saw the file source finished.
            if (e.type === 'completed' && !failure.armed && finishedIn(e.path, 'file')) {
              failure.setArmed();
            }
          },
        });
        env.setRestartStrategy(RestartStrategies.fixedDelay(1, 0));
        const count = 3_000;
        build(env, shape, out, count, inputFile(5), failure);
        await env.execute(`${shape}-${parallelism}`);
        assert.ok(failure.fired, 'the failure after the file source finished was injected');
        assert.match(logger.messages.join('\n'), /injected failure.*restart 1 .*from checkpoint \d+/s);
        assert.deepEqual(committed(out), [-5, -4, -3, -2, -1, ...range(0, count + HELD)]);
      });
    }
  }
});
