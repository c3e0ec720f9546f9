// Per-operator state gauges of a running job: window panes in flight, CEP partial matches and shared-buffer
// entries, as the REST API and a Prometheus scrape show them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StreamExecutionEnvironment } from '../src/api/stream-execution-environment.ts';
import { CEP } from '../src/api/cep.ts';
import { Pattern } from '../src/cep/pattern/pattern.ts';
import { CollectSink } from '../src/connectors/collect-sink.ts';
import { PrometheusReporter } from '../src/metrics/prometheus/index.ts';
import { WatermarkStrategy } from '../src/time/watermark-strategy.ts';
import { TumblingEventTimeWindows } from '../src/windowing/assigners/tumbling-event-time-windows.ts';
import { vertexId } from '../src/web/job-views.ts';
import { waitFor } from './support/wait-for.ts';

interface Event {
  readonly key: string;
  readonly name: string;
  readonly ts: number;
}

/**
 * Five events, then the source waits for good (the test cancels the job). The watermark reaches 6499: the windows
 * [0, 5000) of a and b fire and go; [5000, 10000) of a and c stay (2 panes). CEP (start followedBy end, event
 * time): a took its start and waits for an end (1 partial match holding 1 event in 1 entry); b matched start → end
 * and, as followedBy skips only events that do not match, keeps nothing; c's start at 6500 is still queued behind
 * the watermark.
 */
const events: Event[] = [
  { key: 'a', name: 'start', ts: 1000 },
  { key: 'b', name: 'start', ts: 1500 },
  { key: 'b', name: 'end', ts: 2000 },
  { key: 'a', name: 'other', ts: 6000 },
  { key: 'c', name: 'start', ts: 6500 },
];

describe('state gauges of window and CEP operators', () => {
  it('reports live window panes, partial matches and shared-buffer events and entries in REST and Prometheus', async () => {
    const prometheus = await PrometheusReporter.start({ port: 0 });
    // A watermark after every record: the last one (6499) comes before the source waits.
    const env = StreamExecutionEnvironment.create({
      autoWatermarkRecords: 1,
      metrics: { reporters: [prometheus], intervalMs: 50 },
    });
    const input = env
      .fromAsyncIterable(async function* () {
        yield* events;
        // Nothing the test does on its thread releases the source, which may run on a worker thread.
        await new Promise<never>(() => {});
      }, 'events')
      .assignTimestampsAndWatermarks(
        WatermarkStrategy.forMonotonousTimestamps<Event>().withTimestampAssigner((e) => e.ts),
      );
    input
      .keyBy((e) => e.key)
      .window(TumblingEventTimeWindows.of(5000))
      .reduce((a, b) => ({ ...a, name: `${a.name}+${b.name}` }))
      .name('windows')
      .sinkTo({ createWriter: () => ({ write() {} }) }, 'window-sink');
    // Collected on the test's thread, wherever the CEP operator runs.
    const matches = new CollectSink<string>();
    CEP.pattern(
      input.keyBy((e) => e.key),
      Pattern.begin<Event, 'start'>('start')
        .where((e) => e.name === 'start')
        .followedBy('end')
        .where((e) => e.name === 'end'),
    )
      .select((m: { start: Event[]; end: Event[] }) => `${m.start[0]!.key}:${m.start[0]!.ts}-${m.end[0]!.ts}`)
      .name('cep')
      .sinkTo(matches, 'cep-sink');
    const client = await env.executeAsync('gauges', { webUi: { port: 0 } });
    try {
      const vertex = (name: string): string =>
        vertexId(client.running.graph.nodes.find((n) => n.name === name)!);
      const rest = async (name: string, metrics: string[]): Promise<Record<string, number>> => {
        const url = new URL(
          `/jobs/${client.jobId}/vertices/${vertex(name)}/metrics?get=${metrics.map((m) => `0.${m}`).join(',')}`,
          client.webUiUrl,
        );
        const body = (await (await fetch(url)).json()) as { id: string; value: string }[];
        return Object.fromEntries(body.map((m) => [m.id.slice(2), Number(m.value)]));
      };
      await waitFor('the watermark to pass 4999', () => matches.values.length === 1);
      const windows = await waitFor('the first windows to fire', async () => {
        const m = await rest('windows', ['numWindowPanes']);
        return m.numWindowPanes === 2 ? m : undefined;
      });
      assert.deepEqual(windows, { numWindowPanes: 2 });
      assert.deepEqual(matches.values, ['b:1500-2000']);
      assert.deepEqual(
        await rest('cep', ['numPartialMatches', 'numSharedBufferEvents', 'numSharedBufferEntries']),
        {
          numPartialMatches: 1,
          numSharedBufferEvents: 1,
          numSharedBufferEntries: 1,
        },
      );

      const scrape = await (await fetch(`http://127.0.0.1:${prometheus.port}/metrics`)).text();
      const sample = (metric: string, operator: string): number => {
        const line = scrape
          .split('\n')
          .find((l) => l.startsWith(`weir_operator_${metric}{`) && l.includes(`operator_name="${operator}"`));
        assert.ok(line !== undefined, `no ${metric} of ${operator} in the scrape`);
        return Number(line.slice(line.lastIndexOf(' ') + 1));
      };
      assert.equal(sample('numWindowPanes', 'windows'), 2);
      assert.equal(sample('numPartialMatches', 'cep'), 1);
      assert.equal(sample('numSharedBufferEvents', 'cep'), 1);
      assert.equal(sample('numSharedBufferEntries', 'cep'), 1);
    } finally {
      await client.cancel();
      await client.result.catch(() => undefined);
      await prometheus.close();
    }
  });
});
