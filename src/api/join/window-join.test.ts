// Ported from Flink's CoGroupJoinITCase (coGroup, join, self-join), plus FlatJoinFunction, lateness and restore.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DataStream } from '../data-stream.ts';
import { ConfigurationError } from '../../core/errors.ts';
import { StreamExecutionEnvironment } from '../stream-execution-environment.ts';
import { TestHarness } from '../../testing/index.ts';
import { WatermarkStrategy } from '../../time/watermark-strategy.ts';
import { TumblingEventTimeWindows } from '../../windowing/assigners/tumbling-event-time-windows.ts';
import { CountTrigger } from '../../windowing/triggers/count-trigger.ts';
import { Types } from '../../core/record-type.ts';
import { TaggedUnionType } from '../../core/tagged-union-type.ts';
import type { Transformation } from '../../graph/transformation.ts';

type T2 = [string, number];
type T3 = [string, string, number];
const tuple = (t: readonly unknown[]) => `(${t.join(',')})`;

function timestamped<T extends readonly unknown[]>(
  env: StreamExecutionEnvironment,
  values: T[],
): DataStream<T> {
  const strategy = WatermarkStrategy.forMonotonousTimestamps<T>().withTimestampAssigner(
    (t) => t[t.length - 1] as number,
  );
  return env.fromCollection(values).assignTimestampsAndWatermarks(strategy);
}

describe('CoGroupJoinITCase (Flink)', () => {
  it('testCoGroup', async () => {
    const env = StreamExecutionEnvironment.create({ parallelism: 1 });
    const source1 = timestamped<T2>(env, [
      ['a', 0],
      ['a', 1],
      ['a', 2],
      ['b', 3],
      ['b', 4],
      ['b', 5],
      ['a', 6],
      ['a', 7],
      ['a', 8],
    ]);
    const source2 = timestamped<T2>(env, [
      ['a', 0],
      ['a', 1],
      ['b', 3],
      ['c', 6],
      ['c', 7],
      ['c', 8],
    ]);
    const results = await source1
      .coGroup(source2)
      .where((t) => t[0])
      .equalTo((t) => t[0])
      .window(TumblingEventTimeWindows.of(3))
      .apply<string>((first, second, out) =>
        out.collect(`F:${first.map(tuple).join('')} S:${second.map(tuple).join('')}`),
      )
      .executeAndCollect();
    assert.deepEqual(results.sort(), [
      'F: S:(c,6)(c,7)(c,8)',
      'F:(a,0)(a,1)(a,2) S:(a,0)(a,1)',
      'F:(a,6)(a,7)(a,8) S:',
      'F:(b,3)(b,4)(b,5) S:(b,3)',
    ]);
  });

  const source1Join: T3[] = [
    ['a', 'x', 0],
    ['a', 'y', 1],
    ['a', 'z', 2],
    ['b', 'u', 3],
    ['b', 'w', 5],
    ['a', 'i', 6],
    ['a', 'j', 7],
    ['a', 'k', 8],
  ];

  it('testJoin', async () => {
    const env = StreamExecutionEnvironment.create({ parallelism: 1 });
    const source1 = timestamped<T3>(env, source1Join);
    const source2 = timestamped<T3>(env, [
      ['a', 'u', 0],
      ['a', 'w', 1],
      ['b', 'i', 3],
      ['b', 'k', 5],
      ['a', 'x', 6],
      ['a', 'z', 8],
    ]);
    const results = await source1
      .join(source2)
      .where((t) => t[0])
      .equalTo((t) => t[0])
      .window(TumblingEventTimeWindows.of(3))
      .apply((first, second) => `${tuple(first)}:${tuple(second)}`)
      .executeAndCollect();
    assert.deepEqual(
      results.sort(),
      [
        '(a,x,0):(a,u,0)',
        '(a,x,0):(a,w,1)',
        '(a,y,1):(a,u,0)',
        '(a,y,1):(a,w,1)',
        '(a,z,2):(a,u,0)',
        '(a,z,2):(a,w,1)',
        '(b,u,3):(b,i,3)',
        '(b,u,3):(b,k,5)',
        '(b,w,5):(b,i,3)',
        '(b,w,5):(b,k,5)',
        '(a,i,6):(a,x,6)',
        '(a,i,6):(a,z,8)',
        '(a,j,7):(a,x,6)',
        '(a,j,7):(a,z,8)',
        '(a,k,8):(a,x,6)',
        '(a,k,8):(a,z,8)',
      ].sort(),
    );
  });

  it('testSelfJoin', async () => {
    const env = StreamExecutionEnvironment.create({ parallelism: 1 });
    const source1 = timestamped<T3>(env, source1Join);
    const results = await source1
      .join(source1)
      .where((t) => t[0])
      .equalTo((t) => t[0])
      .window(TumblingEventTimeWindows.of(3))
      .apply((first, second) => `${tuple(first)}:${tuple(second)}`)
      .executeAndCollect();
    assert.deepEqual(
      results.sort(),
      [
        '(a,x,0):(a,x,0)',
        '(a,x,0):(a,y,1)',
        '(a,x,0):(a,z,2)',
        '(a,y,1):(a,x,0)',
        '(a,y,1):(a,y,1)',
        '(a,y,1):(a,z,2)',
        '(a,z,2):(a,x,0)',
        '(a,z,2):(a,y,1)',
        '(a,z,2):(a,z,2)',
        '(b,u,3):(b,u,3)',
        '(b,u,3):(b,w,5)',
        '(b,w,5):(b,u,3)',
        '(b,w,5):(b,w,5)',
        '(a,i,6):(a,i,6)',
        '(a,i,6):(a,j,7)',
        '(a,i,6):(a,k,8)',
        '(a,j,7):(a,i,6)',
        '(a,j,7):(a,j,7)',
        '(a,j,7):(a,k,8)',
        '(a,k,8):(a,i,6)',
        '(a,k,8):(a,j,7)',
        '(a,k,8):(a,k,8)',
      ].sort(),
    );
  });

  it('testCoGroupOperatorWithCheckpoint: the co-group window state snapshots and restores', async () => {
    const build = (a: DataStream<T2>, b: DataStream<T2>) =>
      a
        .coGroup(b)
        .where((t) => t[0])
        .equalTo((t) => t[0])
        .window(TumblingEventTimeWindows.of(3))
        .apply<string>((first, second, out) =>
          out.collect(`${first.map(tuple).join('')}:${second.map(tuple).join('')}`),
        );
    const h1 = await TestHarness.createTwoInput(build);
    h1.processElement1(['a', 0], 0);
    h1.processElement1(['b', 3], 3);
    h1.processElement2(['a', 1], 1);
    const snapshot = h1.snapshot();
    await h1.close();
    const h2 = await TestHarness.restoreTwoInput(build, snapshot, { parallelism: 2 });
    h2.processElement2(['b', 5], 5);
    h2.processWatermark1(2);
    h2.processWatermark2(2);
    assert.deepEqual(h2.records(), ['(a,0):(a,1)']);
    h2.processWatermark1(5);
    h2.processWatermark2(5);
    assert.deepEqual(h2.records(), ['(a,0):(a,1)', '(b,3):(b,5)']);
    assert.deepEqual(
      h2.output().flatMap((e) => ('value' in e ? [e.timestamp] : [])),
      [2, 5],
      'results carry the window max timestamp',
    );
    await h2.close();
  });
});

describe('window join', () => {
  it('a FlatJoinFunction emits any number of results per pair', async () => {
    const h = await TestHarness.createTwoInput((a: DataStream<T2>, b: DataStream<T2>) =>
      a
        .join(b)
        .where((t) => t[0])
        .equalTo((t) => t[0])
        .window(TumblingEventTimeWindows.of(10))
        .apply<string>((x, y, out) => {
          for (let i = 0; i < y[1]; i++) out.collect(`${x[1]}/${i}`);
        }),
    );
    h.processElement1(['k', 1], 1);
    h.processElement1(['k', 2], 2);
    h.processElement2(['k', 2], 3);
    h.processElement2(['k', 0], 4);
    h.processElement2(['other', 5], 5);
    h.processWatermark1(9);
    h.processWatermark2(9);
    assert.deepEqual(h.records(), ['1/0', '1/1', '2/0', '2/1']);
    await h.close();
  });

  it('takes a trigger and allowed lateness: late pairs fire the window again', async () => {
    const h = await TestHarness.createTwoInput((a: DataStream<T2>, b: DataStream<T2>) =>
      a
        .join(b)
        .where((t) => t[0])
        .equalTo((t) => t[0])
        .window(TumblingEventTimeWindows.of(10))
        .allowedLateness(10)
        .apply((x, y) => `${x[1]}+${y[1]}`),
    );
    h.processElement1(['k', 1], 1);
    h.processElement2(['k', 2], 2);
    h.processWatermark1(10);
    h.processWatermark2(10);
    assert.deepEqual(h.records(), ['1+2']);
    h.processElement2(['k', 3], 3); // late but within the allowed lateness
    assert.deepEqual(h.records(), ['1+2', '1+2', '1+3']);
    h.processWatermark1(30);
    h.processWatermark2(30);
    h.processElement2(['k', 4], 4); // behind the lateness: dropped
    assert.equal(h.records().length, 3);
    assert.equal(h.numKeyedStateEntries(), 0);
    await h.close();

    const counted = await TestHarness.createTwoInput((a: DataStream<T2>, b: DataStream<T2>) =>
      a
        .coGroup(b)
        .where((t) => t[0])
        .equalTo((t) => t[0])
        .window(TumblingEventTimeWindows.of(100))
        .trigger(CountTrigger.of(2))
        .apply<string>((x, y, out) => out.collect(`${x.length}|${y.length}`)),
    );
    counted.processElement1(['k', 1], 1);
    counted.processElement2(['k', 2], 2);
    counted.processElement2(['k', 3], 3);
    assert.deepEqual(counted.records(), ['1|1']);
    await counted.close();
  });

  it('rejects a missing function or key selector when the job is built', () => {
    const env = StreamExecutionEnvironment.create();
    const a = env.fromElements<T2>(['a', 1]);
    assert.throws(() => a.coGroup(a).where(undefined as never), ConfigurationError);
    const w = a
      .join(a)
      .where((t) => t[0])
      .equalTo((t) => t[0])
      .window(TumblingEventTimeWindows.of(3));
    assert.throws(() => w.apply(undefined as never), ConfigurationError);
  });
});

describe('window join of declared records', () => {
  interface Person {
    id: number;
    name: string;
    ts: number;
  }
  interface Auction {
    seller: number;
    item: number;
    ts: number;
  }
  const PersonRecord = Types.record({ id: 'number', name: 'string', ts: 'number' });
  const AuctionRecord = Types.record({ seller: 'number', item: 'number', ts: 'number' });

  /** The join's two tagging operators, found above the window operator. */
  function taggingOperators(stream: DataStream<string>): Transformation[] {
    const found: Transformation[] = [];
    const visit = (t: Transformation): void => {
      if (/ Input [12]$/.test(t.name)) found.push(t);
      t.inputs.forEach(visit);
    };
    visit(stream.transformation);
    return found;
  }

  function join(declare: { persons: boolean; auctions: boolean }) {
    const env = StreamExecutionEnvironment.create({ parallelism: 2 });
    const persons = env
      .fromCollection<Person>([
        { id: 1, name: 'ann', ts: 1 },
        { id: 2, name: 'bo', ts: 2 },
        { id: 3, name: '', ts: 12 },
      ])
      .assignTimestampsAndWatermarks(
        WatermarkStrategy.forMonotonousTimestamps<Person>().withTimestampAssigner((p) => p.ts),
      );
    const auctions = env
      .fromCollection<Auction>([
        { seller: 1, item: 10, ts: 3 },
        { seller: 2, item: -0.25, ts: 4 },
        { seller: 1, item: 11, ts: 5 },
        { seller: 3, item: 12, ts: 13 },
        { seller: 1, item: 13, ts: 14 },
      ])
      .assignTimestampsAndWatermarks(
        WatermarkStrategy.forMonotonousTimestamps<Auction>().withTimestampAssigner((a) => a.ts),
      );
    if (declare.persons) persons.returns(PersonRecord);
    if (declare.auctions) auctions.returns(AuctionRecord);
    return persons
      .join(auctions)
      .where((p) => p.id)
      .equalTo((a) => a.seller)
      .window(TumblingEventTimeWindows.of(10))
      .apply((p, a) => `${p.name}:${a.item}`);
  }

  it('tags both inputs with one union of their declared types, and joins exactly as undeclared', async () => {
    const joined = join({ persons: true, auctions: true });
    const tagging = taggingOperators(joined);
    assert.equal(tagging.length, 2);
    const union = tagging[0]!.outputType;
    assert.ok(union instanceof TaggedUnionType);
    assert.equal(tagging[1]!.outputType, union);
    assert.equal(union.first, PersonRecord);
    assert.equal(union.second, AuctionRecord);
    // In worker mode (npm run test:workers) the tagged elements cross to the keyed window subtasks typed.
    const expected = [':12', 'ann:10', 'ann:11', 'bo:-0.25'];
    assert.deepEqual((await joined.executeAndCollect()).sort(), expected);
    assert.deepEqual((await join({ persons: false, auctions: false }).executeAndCollect()).sort(), expected);
  });

  it('leaves the tagged elements undeclared when either input is', () => {
    for (const declare of [
      { persons: true, auctions: false },
      { persons: false, auctions: true },
    ]) {
      const tagging = taggingOperators(join(declare));
      assert.deepEqual(
        tagging.map((t) => t.outputType),
        [undefined, undefined],
      );
    }
  });
});
