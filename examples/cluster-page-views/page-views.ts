// The page-views job for cluster mode: views per page per 10 s of event time, from a Kafka topic to a Kafka topic, exactly once.
import {
  Time,
  TumblingEventTimeWindows,
  WatermarkStrategy,
  type AggregateFunction,
  type ProcessWindowFunction,
  type StreamExecutionEnvironment,
  type TimeWindow,
} from '../../src/index.ts';
import {
  DeliveryGuarantee,
  Deserializers,
  KafkaSink,
  KafkaSource,
  OffsetsInitializer,
} from '../../src/connectors/kafka/index.ts';

/** One page view as the input topic holds it (JSON). */
export interface PageView {
  readonly user: string;
  /** The path with its query string, as the browser sent it. */
  readonly page: string;
  /** Event time, epoch milliseconds. */
  readonly ts: number;
  /** Marked by the edge as a crawler: not counted. */
  readonly bot: boolean;
}

/** The views of one page in one 10 s window, as the output topic holds it (JSON, keyed by page). */
export interface PageViewCount {
  readonly page: string;
  readonly windowStart: number;
  readonly views: number;
}

/** Where the job reads and writes. */
export interface PageViewTopics {
  readonly bootstrapServers: string;
  readonly input: string;
  readonly output: string;
}

/** The window length and how late a view may arrive within its partition. */
export const WINDOW = Time.seconds(10);
export const OUT_OF_ORDERNESS_MS = 1_000;

/** The path without its query string: `/pricing?ref=mail` and `/pricing` are one page. */
export function pathOf(page: string): string {
  const query = page.indexOf('?');
  return query === -1 ? page : page.slice(0, query);
}

const countViews: AggregateFunction<PageView, number, number> = {
  createAccumulator: () => 0,
  add: (_view, views) => views + 1,
  getResult: (views) => views,
  merge: (a, b) => a + b,
};

const withWindow: ProcessWindowFunction<number, PageViewCount, string, TimeWindow> = {
  process(page, ctx, [views], out) {
    out.collect({ page, windowStart: ctx.window.start, views: views! });
  },
};

/**
 * Builds the job on `env`: read page views (each partition's watermark 1 s behind its latest view), drop bots,
 * strip query strings, key by page (across processes: a repartition topic), count per 10 s tumbling event-time
 * window, and write each count exactly once. The same function builds it in one process and in cluster mode: only
 * the environment differs.
 */
export function buildPageViewCounts(env: StreamExecutionEnvironment, topics: PageViewTopics): void {
  env
    .fromSource(
      KafkaSource.builder<PageView>()
        .setBootstrapServers(topics.bootstrapServers)
        .setTopics(topics.input)
        .setStartingOffsets(OffsetsInitializer.earliest())
        .setValueOnlyDeserializer(Deserializers.json<PageView>())
        .build(),
      WatermarkStrategy.forBoundedOutOfOrderness<PageView>(OUT_OF_ORDERNESS_MS).withTimestampAssigner(
        (view) => view.ts,
      ),
      'page-views',
    )
    .filter((view) => !view.bot, 'humans')
    .map((view): PageView => ({ ...view, page: pathOf(view.page) }), 'path-only')
    .keyBy((view) => view.page)
    .window(TumblingEventTimeWindows.of(WINDOW))
    .aggregate(countViews, withWindow)
    .uid('views-per-page') // names the window's changelog topic: <job id>-views-per-page-changelog
    .sinkTo(
      KafkaSink.builder<PageViewCount>()
        .setBootstrapServers(topics.bootstrapServers)
        .setTopic(topics.output)
        .setRecordSerializer((count) => ({ key: count.page, value: JSON.stringify(count) }))
        .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
        .setTransactionalIdPrefix(`${topics.output}-counts`)
        .build(),
      'counts',
    );
}

const PAGES = ['/', '/pricing', '/docs', '/docs/windows', '/blog', '/signup'];
/** The sample's first event time: 2026-01-01T00:00:00Z. */
export const SAMPLE_START = Date.UTC(2026, 0, 1);
/** Milliseconds between two sample views. */
export const SAMPLE_STEP_MS = 20;
/** Partitions of the sample's input topic: the job's first sub-topology has as many tasks. */
export const SAMPLE_PARTITIONS = 4;

/**
 * `count` sample views, 20 ms of event time apart, spread over the input's partitions in turn (so each partition's
 * views are in event-time order); one in 11 is a bot's, one in 5 carries a query string.
 */
export function samplePageViews(count: number): { partition: number; view: PageView }[] {
  return Array.from({ length: count }, (_, i) => ({
    partition: i % SAMPLE_PARTITIONS,
    view: {
      user: `u${(i * 7_919) % 50}`,
      page: `${PAGES[(i * 31 + (i >> 3)) % PAGES.length]!}${i % 5 === 0 ? '?ref=mail' : ''}`,
      ts: SAMPLE_START + i * SAMPLE_STEP_MS,
      bot: i % 11 === 0,
    },
  }));
}
