// A job on two worker threads with a Prometheus reporter on the main thread: a keyed map counts what it sees in a
// user metric group of its own. Every worker imports this module again; only the main thread starts the reporter.
import { StreamExecutionEnvironment } from '../../src/api/stream-execution-environment.ts';
import type { Counter } from '../../src/core/metric-group.ts';
import { PrometheusReporter } from '../../src/metrics/prometheus/index.ts';

/** The records the source emits before it waits (until the job is cancelled). */
export const RECORDS = 100;

/** On the main thread the reporter; undefined in a worker (whose metrics reach it through the main thread). */
export const prometheus = StreamExecutionEnvironment.isJobWorker()
  ? undefined
  : await PrometheusReporter.start({ port: 0 });

const env = StreamExecutionEnvironment.create({
  parallelism: 2,
  workers: 2,
  jobModule: import.meta.url,
  metrics: { reporters: prometheus !== undefined ? [prometheus] : [], intervalMs: 100 },
});
env
  .fromAsyncIterable(async function* () {
    for (let i = 0; i < RECORDS; i++) yield i;
    await new Promise<never>(() => {});
  }, 'numbers')
  .keyBy((n) => n % 10)
  .process<number>({
    seen: undefined as unknown as Counter,
    open(ctx) {
      this.seen = ctx.getMetricGroup().addGroup('app').addGroup('parity', 'any').counter('seen');
    },
    processElement(n, _ctx, out) {
      this.seen.inc();
      out.collect(n);
    },
  })
  .name('count')
  .sinkTo({ createWriter: () => ({ write() {} }) }, 'discard');

/** On the main thread the running job; in a worker this import never settles. */
export const client = await env.executeAsync('worker-metrics');
