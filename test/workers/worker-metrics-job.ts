// A job on two worker threads with a Prometheus reporter on the main thread: a keyed map counts what it sees in a
// user metric group of its own, with a counter, a meter and a histogram. Every worker imports this module again;
// only the main thread starts the reporters.
import { StreamExecutionEnvironment } from '../../src/api/stream-execution-environment.ts';
import type { Counter, Histogram, MetricGroup } from '../../src/core/metric-group.ts';
import { DescriptiveStatisticsHistogram } from '../../src/metrics/histogram.ts';
import { MeterView } from '../../src/metrics/meter.ts';
import { metricKind, type Metric, type MetricKind } from '../../src/metrics/metric.ts';
import type { MetricReporter } from '../../src/metrics/metric-reporter.ts';
import { PrometheusReporter } from '../../src/metrics/prometheus/index.ts';

/** The records the source emits before it waits (until the job is cancelled). */
export const RECORDS = 100;

/** On the main thread the reporter; undefined in a worker (whose metrics reach it through the main thread). */
export const prometheus = StreamExecutionEnvironment.isJobWorker()
  ? undefined
  : await PrometheusReporter.start({ port: 0 });

/** The value every record adds to the 'sizes' histogram, so each of its quantiles is this value. */
export const SIZE = 7;

/** On the main thread, the kind of each metric of the 'count' operator as reporters are told of it, by name. */
export const kinds = new Map<string, Set<MetricKind>>();
const kindRecorder: MetricReporter = {
  notifyOfAddedMetric(metric: Metric, name: string, group: MetricGroup): void {
    if (group.getAllVariables()['operator_name'] !== 'count') return;
    let seen = kinds.get(name);
    if (seen === undefined) kinds.set(name, (seen = new Set()));
    seen.add(metricKind(metric));
  },
  notifyOfRemovedMetric(): void {},
  report(): void {},
};

const env = StreamExecutionEnvironment.create({
  parallelism: 2,
  workers: 2,
  jobModule: import.meta.url,
  metrics: { reporters: prometheus !== undefined ? [prometheus, kindRecorder] : [], intervalMs: 100 },
});
env
  .fromAsyncIterable(async function* () {
    for (let i = 0; i < RECORDS; i++) yield i;
    await new Promise<never>(() => {});
  }, 'numbers')
  .keyBy((n) => n % 10)
  .process<number>({
    seen: undefined as unknown as Counter,
    sizes: undefined as unknown as Histogram,
    open(ctx) {
      const app = ctx.getMetricGroup().addGroup('app');
      this.seen = app.addGroup('parity', 'any').counter('seen');
      app.meter('rate', new MeterView(this.seen, 60));
      this.sizes = app.histogram('sizes', new DescriptiveStatisticsHistogram(16));
    },
    processElement(n, _ctx, out) {
      this.seen.inc();
      this.sizes.update(SIZE);
      out.collect(n);
    },
  })
  .name('count')
  .sinkTo({ createWriter: () => ({ write() {} }) }, 'discard');

/** On the main thread the running job; in a worker this import never settles. */
export const client = await env.executeAsync('worker-metrics');
