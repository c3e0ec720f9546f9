// RunningJob: the job-scope gauges (restarts, uptime, checkpoint figures) and the bounded exception history.
import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import { JobExecutionError } from '../core/errors.ts';
import type { MetricGroup } from '../core/metric-group.ts';
import type { StreamGraph } from '../graph/stream-graph.ts';
import { metricValue, type Metric } from '../metrics/metric.ts';
import { MetricRegistry } from '../metrics/metric-registry.ts';
import type { MetricReporter } from '../metrics/metric-reporter.ts';
import { EXCEPTION_HISTORY_SIZE, RunningJob } from './running-job.ts';

/** Keeps every metric added, by its identifier. */
class Gauges implements MetricReporter {
  readonly metrics = new Map<string, Metric>();
  readonly variables = new Map<string, Readonly<Record<string, string>>>();
  notifyOfAddedMetric(metric: Metric, name: string, group: MetricGroup): void {
    this.metrics.set(group.getMetricIdentifier(name), metric);
    this.variables.set(name, group.getAllVariables());
  }
  notifyOfRemovedMetric(): void {}
  report(): void {}
  value(name: string): number {
    return metricValue(this.metrics.get(`orders.${name}`)!);
  }
}

const graph = { nodes: [] } as unknown as StreamGraph;

describe('RunningJob', () => {
  it('registers the job-scope gauges under the job name, reading the live figures', () => {
    const gauges = new Gauges();
    const job = new RunningJob('orders', graph, new MetricRegistry({ reporters: [gauges] }));
    assert.match(job.id, /^[0-9a-f]{32}$/);
    assert.deepEqual(gauges.variables.get('numRestarts'), { job_id: job.id, job_name: 'orders' });
    assert.deepEqual(
      [...gauges.metrics.keys()],
      [
        'numRestarts',
        'uptime',
        'numberOfCompletedCheckpoints',
        'numberOfFailedCheckpoints',
        'numberOfInProgressCheckpoints',
        'totalNumberOfCheckpoints',
        'lastCheckpointDuration',
        'lastCheckpointSize',
        'lastCheckpointAlignmentTime',
        'lastCheckpointRestoreTimestamp',
      ].map((name) => `orders.${name}`),
    );
    const names = [...gauges.metrics.keys()].map((k) => k.slice('orders.'.length));
    const values = () => names.map((name) => gauges.value(name));
    // Nothing yet: counts 0, the last checkpoint's figures -1, and no uptime before the job runs.
    assert.deepEqual(values(), [0, 0, 0, 0, 0, 0, -1, -1, -1, -1]);

    job.numRestarts = 2;
    const stats = job.checkpoints;
    stats.reportPending(1, 'checkpoint', 1_000);
    stats.reportCompleted(1, 1_040, '/chk/chk-1', { total: 512, perOperator: {}, alignmentMs: 3 });
    stats.reportPending(2, 'checkpoint', 2_000);
    stats.reportFailed(2, 2_010, 'declined');
    stats.reportPending(3, 'checkpoint', 3_000);
    stats.reportRestored(1, 4_321, undefined);
    assert.deepEqual(values(), [2, 0, 1, 1, 1, 3, 40, 512, 3, 4_321]);

    job.status = 'RUNNING';
    const uptime = gauges.value('uptime');
    assert.ok(uptime >= 0 && uptime <= Date.now() - job.startTime, `uptime ${uptime}`);
    job.end('FINISHED');
    assert.equal(gauges.value('uptime'), 0);
  });

  it('counts uptime from the start while RUNNING only (mocked clock)', () => {
    mock.timers.enable({ apis: ['Date'], now: 10_000 });
    try {
      const gauges = new Gauges();
      const job = new RunningJob('orders', graph, new MetricRegistry({ reporters: [gauges] }));
      assert.equal(job.startTime, 10_000);
      mock.timers.tick(100);
      assert.equal(gauges.value('uptime'), 0);
      job.status = 'RUNNING';
      mock.timers.tick(150);
      assert.equal(gauges.value('uptime'), 250);
      job.status = 'RESTARTING';
      assert.equal(gauges.value('uptime'), 0);
      job.status = 'RUNNING';
      mock.timers.tick(50);
      assert.equal(gauges.value('uptime'), 300);
      job.end('FINISHED');
      assert.equal(job.endTime, 10_300);
      assert.equal(gauges.value('uptime'), 0);
    } finally {
      mock.timers.reset();
    }
  });

  it('registers nothing without a registry', () => {
    const job = new RunningJob('orders', graph);
    assert.equal(job.metrics, undefined);
    assert.equal(job.status, 'INITIALIZING');
  });

  it('records failures newest first, with the failing operator, subtask and record, up to a bound', () => {
    const job = new RunningJob('orders', graph);
    const before = Date.now();
    const located = job.recordException(
      new JobExecutionError(
        { operator: 'parse', subtask: 1, parallelism: 2, record: '{"id":7}' },
        new Error('bad'),
      ),
      1,
    );
    assert.equal(located.exceptionName, 'JobExecutionError');
    assert.equal(
      located.message,
      `Operator 'parse' (subtask 2/2) failed while processing record {"id":7}: bad`,
    );
    assert.match(located.stacktrace, /^JobExecutionError: Operator 'parse'/);
    assert.ok(located.timestamp >= before && located.timestamp <= Date.now());
    assert.deepEqual(
      [located.taskName, located.subtaskIndex, located.record, located.attempt],
      ['parse', 1, '{"id":7}', 1],
    );
    const plain = job.recordException(new RangeError('out of range'), 2);
    assert.deepEqual(
      [plain.exceptionName, plain.message, plain.taskName, plain.subtaskIndex, plain.record, plain.attempt],
      ['RangeError', 'out of range', undefined, undefined, undefined, 2],
    );
    const thrown = job.recordException('a string', 3);
    assert.deepEqual(
      [thrown.exceptionName, thrown.message, thrown.stacktrace],
      ['string', 'a string', 'a string'],
    );
    const stackless = new Error('no stack');
    stackless.stack = undefined;
    assert.equal(job.recordException(stackless, 4).stacktrace, 'no stack');
    assert.deepEqual(
      job.exceptionHistory().map((e) => e.attempt),
      [4, 3, 2, 1],
    );
    assert.equal(EXCEPTION_HISTORY_SIZE, 16);
    for (let attempt = 5; attempt <= 20; attempt++) job.recordException(new Error('again'), attempt);
    assert.deepEqual(
      job.exceptionHistory().map((e) => e.attempt),
      Array.from({ length: 16 }, (_, i) => 20 - i),
    );
  });

  it('ends with a status and an end time', () => {
    const job = new RunningJob('orders', graph);
    assert.equal(job.endTime, undefined);
    const before = Date.now();
    job.end('CANCELED');
    assert.equal(job.status, 'CANCELED');
    assert.ok(job.endTime! >= before && job.endTime! <= Date.now());
  });
});
