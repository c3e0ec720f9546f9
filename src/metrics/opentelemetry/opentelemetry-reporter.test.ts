// The OpenTelemetry reporter through the real SDK: exact values from an in-memory exporter, and an OTLP/HTTP export.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import {
  AggregationTemporality,
  DataPointType,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { MeterView } from '../meter.ts';
import { DescriptiveStatisticsHistogram } from '../histogram.ts';
import { MetricRegistry } from '../metric-registry.ts';
import { OpenTelemetryReporter, openTelemetryName } from './opentelemetry-reporter.ts';

/** A provider whose reader exports only when flushed (the interval is far beyond any test). */
function inMemory(): {
  provider: MeterProvider;
  reader: PeriodicExportingMetricReader;
  exporter: InMemoryMetricExporter;
} {
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
  return { provider: new MeterProvider({ readers: [reader] }), reader, exporter };
}

/** Collects once and returns `name → [attributes, value]` of the last export, sorted by name. */
async function collect(
  reader: PeriodicExportingMetricReader,
  exporter: InMemoryMetricExporter,
): Promise<Record<string, { type: string; points: [Record<string, unknown>, number][] }>> {
  exporter.reset();
  await reader.forceFlush();
  const out: Record<string, { type: string; points: [Record<string, unknown>, number][] }> = {};
  for (const resource of exporter.getMetrics()) {
    for (const scope of resource.scopeMetrics) {
      assert.equal(scope.scope.name, 'weir');
      for (const metric of scope.metrics) {
        out[metric.descriptor.name] = {
          type:
            metric.dataPointType === DataPointType.SUM
              ? metric.isMonotonic
                ? 'MONOTONIC_SUM'
                : 'SUM'
              : DataPointType[metric.dataPointType],
          points: metric.dataPoints.map((p) => [{ ...p.attributes }, p.value as number]),
        };
      }
    }
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : 1)));
}

describe('OpenTelemetryReporter', () => {
  it('maps counters, gauges, meters and histograms onto observable instruments with the scope variables as attributes', async () => {
    const { provider, reader, exporter } = inMemory();
    const reporter = new OpenTelemetryReporter({ meterProvider: provider });
    const registry = new MetricRegistry({ reporters: [reporter], intervalMs: 1000 });
    const job = registry.createGroup('job', { job_id: 'j1', job_name: 'orders' }, ['orders']);
    const op = registry.createGroup(
      'operator',
      { job_id: 'j1', job_name: 'orders', operator_name: 'parse', subtask_index: '1' },
      ['orders', 'parse', '1'],
    );
    const parsed = op.counter('parsed');
    const meter = op.meter('parsedPerSecond', new MeterView(parsed, 60));
    const latency = op.histogram('latencyMs', new DescriptiveStatisticsHistogram(4));
    op.addGroup('queue', 'orders').gauge('size', { getValue: () => 3 });
    op.gauge('lag', { getValue: () => undefined }); // no value yet: no data point, so the SDK exports no metric
    let running = true;
    job.gauge('running', { getValue: () => running });
    registry.tick(0);
    parsed.inc(30);
    registry.tick(2000);
    for (const v of [100, 1, 2, 3, 4]) latency.update(v);

    const attrs = { job_id: 'j1', job_name: 'orders', operator_name: 'parse', subtask_index: '1' };
    const quantile = (q: number, value: number): [Record<string, unknown>, number] => [
      { ...attrs, quantile: q },
      value,
    ];
    const first = await collect(reader, exporter);
    assert.deepEqual(first, {
      'weir.job.running': { type: 'GAUGE', points: [[{ job_id: 'j1', job_name: 'orders' }, 1]] },
      'weir.operator.latencyMs': {
        type: 'GAUGE',
        points: [
          quantile(0.5, 2.5),
          quantile(0.75, 3.75),
          quantile(0.95, 4),
          quantile(0.98, 4),
          quantile(0.99, 4),
          quantile(0.999, 4),
        ],
      },
      'weir.operator.latencyMs.count': { type: 'MONOTONIC_SUM', points: [[attrs, 5]] },
      'weir.operator.parsed': { type: 'MONOTONIC_SUM', points: [[attrs, 30]] },
      'weir.operator.parsedPerSecond': { type: 'GAUGE', points: [[attrs, 15]] },
      'weir.operator.parsedPerSecond.count': { type: 'MONOTONIC_SUM', points: [[attrs, 30]] },
      'weir.operator.queue.size': {
        type: 'GAUGE',
        points: [[{ ...attrs, queue: 'orders' }, 3]],
      },
    });
    assert.equal(meter.getRate(), 15);

    // A subtask's metrics leave with it: the reporter reads them no more (the SDK, cumulative, repeats the last
    // value it saw for the series); the job's stay.
    registry.unregister(op);
    parsed.inc(5);
    assert.deepEqual(
      await collect(reader, exporter),
      first,
      'parsed stays at 30: the removed counter is not read',
    );
    // Closed: nothing is read any more.
    running = false;
    reporter.close();
    assert.deepEqual(
      await collect(reader, exporter),
      first,
      'running stays 1: the reporter observes nothing',
    );
    await provider.shutdown();
  });

  it('names instruments weir.<scope>.<groups>.<name>', () => {
    const registry = new MetricRegistry();
    const op = registry.createGroup('operator', {}, ['job', 'op', '0']);
    assert.equal(openTelemetryName(op, 'numRecordsIn'), 'weir.operator.numRecordsIn');
    assert.equal(
      openTelemetryName(op.addGroup('parser'), 'invalidLines'),
      'weir.operator.parser.invalidLines',
    );
    // a key-value group's value is an attribute, not part of the name
    assert.equal(openTelemetryName(op.addGroup('user', 'alice'), 'x'), 'weir.operator.user.x');
  });

  it('exports over OTLP/HTTP as JSON to a collector', async () => {
    const bodies: any[] = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        assert.equal(req.url, '/v1/metrics');
        assert.equal(req.headers['content-type'], 'application/json');
        bodies.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/metrics`;
    const reader = new PeriodicExportingMetricReader({
      exporter: new OTLPMetricExporter({ url }),
      exportIntervalMillis: 3_600_000,
    });
    const provider = new MeterProvider({ readers: [reader] });
    const reporter = new OpenTelemetryReporter({ meterProvider: provider });
    const registry = new MetricRegistry({ reporters: [reporter] });
    const op = registry.createGroup('operator', { job_name: 'orders', subtask_index: '0' }, [
      'orders',
      'map',
      '0',
    ]);
    op.counter('numRecordsIn').inc(42);
    try {
      await reader.forceFlush();
      assert.equal(bodies.length, 1);
      const metrics = bodies[0].resourceMetrics[0].scopeMetrics[0].metrics;
      assert.deepEqual(
        metrics.map((m: any) => ({
          name: m.name,
          monotonic: m.sum.isMonotonic,
          points: m.sum.dataPoints.map((p: any) => ({
            value: p.asInt ?? p.asDouble,
            attributes: Object.fromEntries(p.attributes.map((a: any) => [a.key, a.value.stringValue])),
          })),
        })),
        [
          {
            name: 'weir.operator.numRecordsIn',
            monotonic: true,
            points: [{ value: 42, attributes: { job_name: 'orders', subtask_index: '0' } }],
          },
        ],
      );
    } finally {
      reporter.close();
      await provider.shutdown();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
