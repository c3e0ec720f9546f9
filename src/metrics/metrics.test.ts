// Metric types, groups and the registry: exact values with manual sampling times.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FieldCounter, SimpleCounter } from './counter.ts';
import { DescriptiveStatisticsHistogram } from './histogram.ts';
import { MeterView } from './meter.ts';
import { metricKind, metricValue, type Metric } from './metric.ts';
import type { MetricGroup } from '../core/metric-group.ts';
import { MetricRegistry } from './metric-registry.ts';
import type { MetricReporter } from './metric-reporter.ts';

/** A reporter that keeps what it was told, keyed by identifier. */
class RecordingReporter implements MetricReporter {
  readonly metrics = new Map<string, Metric>();
  reports = 0;
  notifyOfAddedMetric(metric: Metric, name: string, group: MetricGroup): void {
    this.metrics.set(group.getMetricIdentifier(name), metric);
  }
  notifyOfRemovedMetric(_metric: Metric, name: string, group: MetricGroup): void {
    this.metrics.delete(group.getMetricIdentifier(name));
  }
  report(): void {
    this.reports++;
  }
}

describe('metrics', () => {
  it('counts with SimpleCounter and reads fields with FieldCounter', () => {
    const c = new SimpleCounter();
    c.inc();
    c.inc(4);
    c.dec(2);
    assert.equal(c.getCount(), 3);
    let field = 7;
    const f = new FieldCounter(() => field);
    field = 9;
    assert.equal(f.getCount(), 9);
    assert.throws(() => f.inc(), /cannot be changed/);
  });

  it('MeterView: the rate over the span from sampled counts', () => {
    const counter = new SimpleCounter();
    const meter = new MeterView(counter, 2);
    meter.sample(0);
    assert.equal(meter.getRate(), 0);
    counter.inc(100);
    meter.sample(1000);
    assert.equal(meter.getRate(), 100);
    counter.inc(300);
    meter.sample(2000);
    assert.equal(meter.getRate(), 200); // (400 - 0) over 2 s
    counter.inc(50);
    meter.sample(3000);
    assert.equal(meter.getRate(), 175); // (450 - 100) over 2 s: the sample at 0 left the span
    assert.equal(meter.getCount(), 450);
  });

  it('DescriptiveStatisticsHistogram keeps the last window of values', () => {
    const h = new DescriptiveStatisticsHistogram(4);
    for (const v of [100, 1, 2, 3, 4]) h.update(v);
    const s = h.getStatistics();
    assert.equal(h.getCount(), 5);
    assert.deepEqual(s.getValues(), [1, 2, 3, 4]);
    assert.equal(s.getMin(), 1);
    assert.equal(s.getMax(), 4);
    assert.equal(s.getMean(), 2.5);
    assert.equal(s.getQuantile(0.5), 2.5);
    assert.equal(s.getStdDev(), Math.sqrt(5 / 3));
    assert.throws(() => new DescriptiveStatisticsHistogram(0), /at least 1/);
  });

  it('tells metric kinds apart and reads their values', () => {
    const gauge = { getValue: () => 42 };
    assert.equal(metricKind(new SimpleCounter()), 'counter');
    assert.equal(metricKind(new MeterView(5)), 'meter');
    assert.equal(metricKind(new DescriptiveStatisticsHistogram()), 'histogram');
    assert.equal(metricKind(gauge), 'gauge');
    assert.equal(metricValue(gauge), 42);
    assert.ok(Number.isNaN(metricValue({ getValue: () => 'text' })));
  });

  it('groups carry variables and identifiers; the registry tells reporters and samples views', () => {
    const reporter = new RecordingReporter();
    const registry = new MetricRegistry({ reporters: [reporter], intervalMs: 1000 });
    const job = registry.createGroup('job', { job_name: 'orders' }, ['orders']);
    const op = registry.createGroup('operator', { job_name: 'orders', subtask_index: '1' }, [
      'orders',
      'map',
      '1',
    ]);
    const counter = op.counter('parsed');
    counter.inc(10);
    const meter = op.meter('parsedPerSecond', new MeterView(counter, 60));
    const user = op.addGroup('user', 'alice');
    user.gauge('queue', { getValue: () => 3 });
    job.gauge('numRestarts', { getValue: () => 0 });
    assert.deepEqual(user.getAllVariables(), { job_name: 'orders', subtask_index: '1', user: 'alice' });
    assert.deepEqual(
      [...reporter.metrics.keys()],
      [
        'orders.map.1.parsed',
        'orders.map.1.parsedPerSecond',
        'orders.map.1.user.alice.queue',
        'orders.numRestarts',
      ],
    );
    registry.tick(0);
    counter.inc(20);
    registry.tick(2000);
    assert.equal(meter.getRate(), 10);
    assert.equal(reporter.reports, 2);
    registry.unregister(op);
    assert.deepEqual([...reporter.metrics.keys()], ['orders.numRestarts']);
    assert.throws(() => op.counter('bad name'), /Invalid metric or group name 'bad name'/);
  });
});
