// limit-p2, the limit's loops on two threads: the same results as the limit on every workload it runs, records crossing
// through rings that wrap many times; the ring itself on one thread (reserve, wrap, release); the report's × limit-p2.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { limitSystem } from '../../bench/limit/index.ts';
import { latestReports, limitP2System } from '../../bench/limit/p2/index.ts';
import { createRingBuffers, resetRing, RingReader, RingWriter } from '../../bench/limit/p2/thread-ring.ts';
import type { Measurement } from '../../bench/runner/measurement.ts';
import { renderMarkdown } from '../../bench/runner/report-markdown.ts';
import { defaultParams, type WorkloadId } from '../../bench/workloads/params.ts';

describe('limit-p2', () => {
  for (const workload of Object.keys(limitP2System.workloads) as WorkloadId[]) {
    it(`${workload}: the limit's count and checksum, each thread generating half and the keyed records crossing`, async () => {
      const params = defaultParams(60_000, 7);
      const expected = await limitSystem.workloads[workload]!(params);
      for (let run = 0; run < 2; run++) {
        const result = await limitP2System.workloads[workload]!(params);
        assert.equal(result.count, expected.count);
        assert.equal(result.checksum, expected.checksum);
        assert.equal(result.events, params.events);
        // The workers start on the first run of the process only; later runs find them kept.
        if (run > 0) assert.equal(result.startupMs, 0);
        const generated = latestReports.reduce((n, r) => n + r.generated, 0);
        const sent = latestReports.reduce((n, r) => n + r.sent, 0);
        assert.equal(generated, params.events);
        if (workload === 'stateless') assert.equal(sent, 0);
        // About half of each thread's records belong to the other's key groups: the rings wrap many times.
        else assert.ok(sent > params.events / 3 && sent < (params.events * 2) / 3, `sent ${sent}`);
      }
    });
  }
});

describe('the ring between two threads', () => {
  it('refuses a reservation past its capacity, wraps, and frees room as the reader releases', () => {
    const buffers = createRingBuffers(8, 5);
    const writer = new RingWriter(buffers, 4);
    const reader = new RingReader(buffers, 4);
    const seen: number[] = [];
    let next = 0;
    for (let round = 0; round < 5; round++) {
      assert.ok(writer.reserve(6));
      for (let k = 0; k < 6; k++) writer.data[writer.offset(writer.written++)] = next++;
      assert.equal(writer.reserve(3), false); // 6 of 8 unread
      assert.equal(reader.available(), 0); // nothing published yet
      assert.ok(writer.publish());
      assert.equal(writer.publish(), false);
      assert.equal(reader.available(), 6);
      for (let k = 0; k < 6; k++) {
        seen.push(reader.data[reader.next()] as number);
        reader.advance();
      }
      assert.equal(writer.reserve(3), false); // read, not yet released
      reader.release();
      assert.ok(writer.reserve(8));
    }
    assert.deepEqual(
      seen,
      Array.from({ length: 30 }, (_, i) => i),
    );
    resetRing(buffers);
    assert.equal(new RingReader(buffers, 4).available(), 0);
  });
});

describe('the report', () => {
  const cell = (system: string, rate: number): Measurement => ({
    system,
    workload: 'rolling-count',
    status: 'ok',
    events: 1000,
    parallelism: 1,
    runs: [{ ms: 1000 / rate, count: 1000, checksum: 5, events: 1000 }],
    eventsPerSecond: { median: rate, min: rate, max: rate },
  });

  it('sets the systems on two threads beside limit-p2, and only them', () => {
    const markdown = renderMarkdown(
      {
        date: '2026-12-04T19:00:00.000Z',
        node: '24.21.0',
        cpus: 2,
        loadAverage: [1, 1, 1],
        nodeEvents: 1000,
        keys: 10_000,
        runs: 1,
        warmup: 0,
        childProcesses: true,
      },
      [cell('limit', 20e6), cell('weir', 10e6), cell('limit-p2', 25e6), cell('weir-p2', 12.5e6)],
      [],
    );
    const row = (system: string): string[] =>
      markdown
        .split('\n')
        .find((line) => line.includes(`| ${system} |`))!
        .split('|')
        .map((c) => c.trim());
    assert.match(markdown, /\| × limit \| × limit-p2 \| × Flink p1 \|/);
    // columns: '', workload, system, median, range, × limit, × limit-p2, ...
    assert.deepEqual(row('weir-p2').slice(5, 7), ['0.63', '0.50']);
    assert.deepEqual(row('limit-p2').slice(5, 7), ['1.25', '1.00']);
    assert.deepEqual(row('weir').slice(5, 7), ['0.50', '–']);
  });
});
