// A job's metrics end to end: Flink's names and scopes, exact counts, late drops, user metrics, a Prometheus scrape.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StreamExecutionEnvironment } from '../src/api/stream-execution-environment.ts';
import { CollectSink } from '../src/connectors/collect-sink.ts';
import { GeneratorSource } from '../src/connectors/generator-source.ts';
import type { Counter, Histogram, MetricGroup } from '../src/core/metric-group.ts';
import { DescriptiveStatisticsHistogram } from '../src/metrics/histogram.ts';
import { MeterView } from '../src/metrics/meter.ts';
import { metricValue, type Metric } from '../src/metrics/metric.ts';
import type { MetricReporter } from '../src/metrics/metric-reporter.ts';
import { PrometheusReporter } from '../src/metrics/prometheus/index.ts';
import { MAX_WATERMARK } from '../src/core/time-domain.ts';
import { WatermarkStrategy } from '../src/time/watermark-strategy.ts';
import { TumblingEventTimeWindows } from '../src/windowing/assigners/tumbling-event-time-windows.ts';
import { Time } from '../src/time/time.ts';

interface Reading {
  readonly n: number;
  readonly ts: number;
}

/** Keeps every metric by `<operator or job>/<subtask>/<name>` and the values seen at each report. */
class RecordingReporter implements MetricReporter {
  readonly metrics = new Map<string, Metric>();
  readonly variables = new Map<string, Readonly<Record<string, string>>>();
  readonly history: Map<string, number>[] = [];
  notifyOfAddedMetric(metric: Metric, name: string, group: MetricGroup): void {
    const v = group.getAllVariables();
    const key = `${v.operator_name ?? 'job'}/${v.subtask_index ?? '-'}/${name}`;
    this.metrics.set(key, metric);
    this.variables.set(key, v);
  }
  notifyOfRemovedMetric(): void {}
  report(): void {
    const values = new Map<string, number>();
    for (const [key, metric] of this.metrics) values.set(key, metricValue(metric));
    this.history.push(values);
  }
  value(key: string): number {
    const metric = this.metrics.get(key);
    assert.ok(metric !== undefined, `no metric ${key}; have ${[...this.metrics.keys()].join(', ')}`);
    return metricValue(metric);
  }
}

/** Readings at event times 1000, 2000, 500 (late once the watermark passed 1999), 3000, 4000. */
const readings: Reading[] = [
  { n: 1, ts: 1000 },
  { n: 2, ts: 2000 },
  { n: 3, ts: 500 },
  { n: 4, ts: 3000 },
  { n: 5, ts: 4000 },
];

/** A punctuated watermark at each reading's timestamp, so lateness depends on the input only. */
const punctuated = WatermarkStrategy.forGenerator<Reading>(() => ({
  onEvent: (r, _ts, out) => out.emitWatermark(r.ts),
  onPeriodicEmit: () => {},
})).withTimestampAssigner((r) => r.ts);

function buildJob(env: StreamExecutionEnvironment, sink: CollectSink<string>): void {
  env
    .fromSource(
      GeneratorSource.of(readings.length, (i) => readings[i]!),
      punctuated,
      'readings',
    )
    .process<Reading>({
      parsed: undefined as unknown as Counter,
      sizes: undefined as unknown as Histogram,
      open(ctx) {
        const group = ctx.getMetricGroup();
        this.parsed = group.counter('parsed');
        this.sizes = group.histogram('sizes', new DescriptiveStatisticsHistogram(16));
        group.meter('parsedRate', new MeterView(this.parsed, 60));
        group.addGroup('unit', 'celsius').gauge('constant', { getValue: () => 21 });
      },
      processElement(r, _ctx, out) {
        this.parsed.inc();
        this.sizes.update(r.n * 10);
        out.collect(r);
      },
    })
    .name('parse')
    .filter((r) => r.n !== 4)
    .name('drop-four')
    .keyBy(() => 'all')
    .window(TumblingEventTimeWindows.of(Time.milliseconds(1000)))
    .reduce((a, b) => ({ n: a.n + b.n, ts: Math.max(a.ts, b.ts) }))
    .name('per-second')
    .map((r) => `${r.n}@${r.ts}`)
    .name('format')
    .sinkTo(sink, 'out');
}

describe('job metrics', () => {
  it('counts records in and out per operator subtask, late drops, watermarks and user metrics, under Flink names', async () => {
    const reporter = new RecordingReporter();
    const env = StreamExecutionEnvironment.create({ metrics: { reporters: [reporter], intervalMs: 10 } });
    const sink = new CollectSink<string>();
    buildJob(env, sink);
    await env.execute('readings');
    assert.deepEqual(sink.values, ['1@1000', '2@2000', '5@4000']);
    assert.equal(reporter.value('readings/0/numRecordsOut'), 5);
    assert.equal(reporter.value('readings/0/numRecordsIn'), 5);
    assert.equal(reporter.value('parse/0/numRecordsIn'), 5);
    assert.equal(reporter.value('drop-four/0/numRecordsOut'), 4);
    assert.equal(reporter.value('per-second/0/numRecordsIn'), 4);
    assert.equal(reporter.value('per-second/0/numLateRecordsDropped'), 1);
    assert.equal(reporter.value('per-second/0/numRecordsOut'), 3);
    assert.equal(reporter.value('out/0/numRecordsIn'), 3);
    assert.equal(reporter.value('readings/0/currentOutputWatermark'), MAX_WATERMARK);
    assert.equal(reporter.value('format/0/currentInputWatermark'), MAX_WATERMARK);
    assert.equal(reporter.value('per-second/0/numStateEntries'), 0);
    assert.equal(reporter.value('parse/0/parsed'), 5);
    assert.equal(reporter.value('parse/0/sizes'), 5);
    assert.equal(reporter.value('parse/0/constant'), 21);
    assert.deepEqual(reporter.variables.get('parse/0/constant'), {
      job_id: reporter.variables.get('job/-/numRestarts')!.job_id,
      job_name: 'readings',
      operator_id: reporter.variables.get('parse/0/numRecordsIn')!.operator_id,
      operator_name: 'parse',
      subtask_index: '0',
      unit: 'celsius',
    });
    assert.match(reporter.variables.get('job/-/numRestarts')!.job_id!, /^[0-9a-f]{32}$/);
    assert.equal(reporter.value('job/-/numRestarts'), 0);
    for (const name of ['busyTimeMsPerSecond', 'backPressuredTimeMsPerSecond', 'idleTimeMsPerSecond']) {
      const v = reporter.value(`parse/0/${name}`);
      assert.ok(v >= 0 && v <= 1000, `${name} = ${v}`);
    }
  });

  it('serves the metrics to a Prometheus scrape in the text exposition format', async () => {
    const prometheus = await PrometheusReporter.start({ port: 0 });
    try {
      const env = StreamExecutionEnvironment.create({ metrics: { reporters: [prometheus] } });
      const sink = new CollectSink<string>();
      buildJob(env, sink);
      await env.execute('readings');
      const response = await fetch(`http://127.0.0.1:${prometheus.port}/metrics`);
      assert.equal(response.status, 200);
      assert.match(response.headers.get('content-type')!, /^text\/plain; version=0\.0\.4/);
      const samples = parseExposition(await response.text());
      const sample = (name: string, labels: Record<string, string>): number | undefined =>
        samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
          ?.value;
      assert.equal(sample('weir_operator_numRecordsIn', { operator_name: 'parse', subtask_index: '0' }), 5);
      assert.equal(sample('weir_operator_numRecordsOut', { operator_name: 'drop-four' }), 4);
      assert.equal(sample('weir_operator_numLateRecordsDropped', { operator_name: 'per-second' }), 1);
      assert.equal(sample('weir_operator_unit_constant', { unit: 'celsius', job_name: 'readings' }), 21);
      assert.equal(sample('weir_operator_sizes', { operator_name: 'parse', quantile: '0.5' }), 30);
      assert.equal(sample('weir_operator_sizes_count', { operator_name: 'parse' }), 5);
      assert.equal(sample('weir_job_numRestarts', { job_name: 'readings' }), 0);
      assert.equal(
        sample('weir_operator_currentOutputWatermark', { operator_name: 'readings' }),
        MAX_WATERMARK,
      );
      assert.equal((await fetch(`http://127.0.0.1:${prometheus.port}/other`)).status, 404);
    } finally {
      await prometheus.close();
    }
  });

  it('attributes busy time to the slow operator and back-pressure to the ones before it', async () => {
    const reporter = new RecordingReporter();
    const env = StreamExecutionEnvironment.create({ metrics: { reporters: [reporter], intervalMs: 50 } });
    const spin = (ms: number): void => {
      const end = performance.now() + ms;
      while (performance.now() < end);
    };
    env
      .fromSource(
        GeneratorSource.of(400, (i) => i, { batchSize: 4 }),
        undefined,
        'numbers',
      )
      .map((n) => n + 1)
      .name('cheap')
      .map((n) => {
        spin(2);
        return n;
      })
      .name('slow')
      .sinkTo(new CollectSink<number>(), 'sink');
    await env.execute('spin');
    // Ticks while the job ran: the slow map is the busiest, the cheap map in front of it back-pressured.
    const ticks = reporter.history.filter((t) => t.get('slow/0/busyTimeMsPerSecond')! > 0);
    assert.ok(ticks.length >= 3, `only ${ticks.length} ticks saw the job running`);
    const slowBusy = ticks.map((t) => t.get('slow/0/busyTimeMsPerSecond')!).sort((a, b) => a - b);
    const median = slowBusy[Math.floor(slowBusy.length / 2)]!;
    assert.ok(median > 500, `slow map busy ${slowBusy.join(', ')} ms/s`);
    // Per tick, one descheduling of the process (the machine is shared) can land inside the cheap map's few
    // microseconds of work and flip that tick; the attribution shows in the medians across the run.
    const medianOf = (metric: string): number => {
      const values = ticks.map((t) => t.get(metric)!).sort((a, b) => a - b);
      return values[Math.floor(values.length / 2)]!;
    };
    const cheapBusy = medianOf('cheap/0/busyTimeMsPerSecond');
    const cheapBackPressured = medianOf('cheap/0/backPressuredTimeMsPerSecond');
    assert.ok(
      cheapBackPressured > cheapBusy,
      `cheap map back-pressured ${cheapBackPressured} ms/s, busy ${cheapBusy}`,
    );
    assert.ok(cheapBusy < median, `cheap ${cheapBusy} < slow ${median}`);
    assert.ok(medianOf('sink/0/busyTimeMsPerSecond') < median, 'sink less busy than the slow map');
  });

  it('with metrics off, user metrics still work and nothing samples the clock', async () => {
    const env = StreamExecutionEnvironment.create({ metrics: false });
    let counted: Counter | undefined;
    const sink = new CollectSink<number>();
    env
      .fromElements(1, 2, 3)
      .process<number>({
        c: undefined as unknown as Counter,
        open(ctx) {
          this.c = counted = ctx.getMetricGroup().counter('seen');
        },
        processElement(n, _ctx, out) {
          this.c.inc();
          out.collect(n);
        },
      })
      .sinkTo(sink);
    const client = await env.executeAsync('off');
    await client.result;
    assert.equal(counted!.getCount(), 3);
    assert.equal(client.running.metrics, undefined);
    assert.equal(client.running.runtime!.timing.enabled, false);
  });
});

interface Sample {
  readonly name: string;
  readonly labels: Record<string, string>;
  readonly value: number;
}

/** Parses Prometheus' text exposition format (sample lines; comments skipped). */
function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    assert.ok(match !== null, `not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const m of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[m[1]!] = m[2]!.replace(/\\(.)/g, '$1');
    const raw = match[3]!;
    const value = raw === '+Inf' ? Infinity : raw === '-Inf' ? -Infinity : Number(raw);
    samples.push({ name: match[1]!, labels, value });
  }
  return samples;
}
