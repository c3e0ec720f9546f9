// Routers and a subtask's output: which consumer channel each record, watermark, idleness change, end and barrier reaches.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OutputTag } from '../core/output-tag.ts';
import { keyGroupFor } from '../state/key-hash.ts';
import type { CheckpointBarrier } from './checkpoint-barrier.ts';
import {
  BroadcastRouter,
  ForwardRouter,
  GlobalRouter,
  HashRouter,
  RebalanceRouter,
  type ChannelWriter,
  type RecordWriter,
} from './record-router.ts';
import { SubtaskOutput } from './subtask-output.ts';

const barrier: CheckpointBarrier = { id: 7, timestamp: 0, kind: 'checkpoint' };

/** A consumer channel that logs what it receives, prefixed with its name. */
function channel(name: string, log: string[]): ChannelWriter {
  return {
    process: (value, timestamp) => log.push(`${name}:${String(value)}@${timestamp}`),
    processKeyed: (value, timestamp, key) =>
      log.push(`${name}:${String(value)}@${timestamp} key ${String(key)}`),
    watermark: (watermark) => log.push(`${name}:wm ${watermark}`),
    status: (idle) => log.push(`${name}:idle ${idle}`),
    endOfInput: () => log.push(`${name}:end`),
    barrier: (b) => log.push(`${name}:barrier ${b.id}`),
  };
}

function channels(n: number, log: string[]): ChannelWriter[] {
  return Array.from({ length: n }, (_, i) => channel(`c${i}`, log));
}

/** Sends one of each non-record event through a router. */
function events(router: {
  watermark(w: number): void;
  status(i: boolean): void;
  endOfInput(): void;
  barrier(b: CheckpointBarrier): void;
}): void {
  router.watermark(5);
  router.status(true);
  router.barrier(barrier);
  router.endOfInput();
}

describe('record routers', () => {
  it('forward: every record and event to its one channel', () => {
    const log: string[] = [];
    const router = new ForwardRouter(channel('c0', log));
    router.route('a', 1);
    router.route('b', 2);
    events(router);
    assert.deepEqual(log, ['c0:a@1', 'c0:b@2', 'c0:wm 5', 'c0:idle true', 'c0:barrier 7', 'c0:end']);
  });

  it('hash: the key group picks the channel as floor(keyGroup * parallelism / maxParallelism), with the key', () => {
    const maxParallelism = 8;
    const keys = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
    const log: string[] = [];
    const router = new HashRouter(channels(3, log), (v: string) => v, maxParallelism);
    for (const key of keys) router.route(key, 0);
    const groups = keys.map((k) => keyGroupFor(k, maxParallelism));
    assert.deepEqual(
      log,
      keys.map((k, i) => `c${Math.floor((groups[i]! * 3) / maxParallelism)}:${k}@0 key ${k}`),
    );
    // The keys spread over more than one channel, so the formula is tested, not a constant.
    assert.ok(new Set(log.map((l) => l.slice(0, 2))).size > 1);
  });

  it('hash: the same key groups split over two channels at the halfway group', () => {
    const maxParallelism = 4;
    const byGroup = new Map<number, string>();
    for (let i = 0; byGroup.size < 4; i++) {
      const key = `k${i}`;
      const group = keyGroupFor(key, maxParallelism);
      if (!byGroup.has(group)) byGroup.set(group, key);
    }
    const log: string[] = [];
    const router = new HashRouter(channels(2, log), (v: string) => v, maxParallelism);
    for (const group of [0, 1, 2, 3]) router.route(byGroup.get(group), group);
    assert.deepEqual(
      log.map((l) => l.slice(0, 2)),
      ['c0', 'c0', 'c1', 'c1'],
    );
  });

  it('hash: one channel takes every record with its extracted key and the selector', () => {
    const seen: unknown[] = [];
    const selector = (v: { id: number }): number => v.id * 10;
    const target: ChannelWriter = {
      ...channel('c0', []),
      processKeyed: (value, timestamp, key, s) => seen.push([value, timestamp, key, s === selector]),
    };
    const router = new HashRouter([target], selector, 128);
    router.route({ id: 3 }, 9);
    assert.deepEqual(seen, [[{ id: 3 }, 9, 30, true]]);
  });

  it('hash: the key is normalized before hashing (-0 and 0 go to one channel)', () => {
    const log: string[] = [];
    const router = new HashRouter(channels(4, log), (v: number) => v, 128);
    router.route(0, 1);
    router.route(-0, 2);
    assert.equal(log[0]!.slice(0, 2), log[1]!.slice(0, 2));
  });

  it('rebalance: round-robin starting at the producer index modulo the channels', () => {
    const log: string[] = [];
    const router = new RebalanceRouter(channels(3, log), 4);
    for (let i = 0; i < 5; i++) router.route(i, i);
    assert.deepEqual(log, ['c1:0@0', 'c2:1@1', 'c0:2@2', 'c1:3@3', 'c2:4@4']);
    log.length = 0;
    events(router);
    assert.deepEqual(log, [
      'c0:wm 5',
      'c1:wm 5',
      'c2:wm 5',
      'c0:idle true',
      'c1:idle true',
      'c2:idle true',
      'c0:barrier 7',
      'c1:barrier 7',
      'c2:barrier 7',
      'c0:end',
      'c1:end',
      'c2:end',
    ]);
  });

  it('broadcast: every record to every channel', () => {
    const log: string[] = [];
    const router = new BroadcastRouter(channels(2, log));
    router.route('a', 3);
    assert.deepEqual(log, ['c0:a@3', 'c1:a@3']);
  });

  it('global: records to the first channel only, events to all', () => {
    const log: string[] = [];
    const router = new GlobalRouter(channels(2, log));
    router.route('a', 3);
    router.route('b', 4);
    router.watermark(9);
    assert.deepEqual(log, ['c0:a@3', 'c0:b@4', 'c0:wm 9', 'c1:wm 9']);
  });

  it('every router: records for a consumer given its own writer go there, events still to its channel', () => {
    const log: string[] = [];
    const input = (name: string): RecordWriter => ({
      process: (value, timestamp) => log.push(`${name}:${String(value)}@${timestamp}`),
      processKeyed: (value, timestamp, key) =>
        log.push(`${name}:${String(value)}@${timestamp} key ${String(key)}`),
    });
    const forward = new ForwardRouter(channel('c0', log));
    forward.deliverRecords(0, input('in0'));
    forward.route('a', 1);
    forward.watermark(2);
    assert.deepEqual(log.splice(0), ['in0:a@1', 'c0:wm 2']);
    assert.equal(forward.directWriter(), forward.directWriter());

    const keyed = new HashRouter(channels(1, log), (v: string) => v.toUpperCase(), 8);
    keyed.deliverRecords(0, input('in0'));
    keyed.route('a', 1);
    assert.deepEqual(log.splice(0), ['in0:a@1 key A']);

    const maxParallelism = 8;
    const hash = new HashRouter(channels(2, log), (v: string) => v, maxParallelism);
    hash.deliverRecords(1, input('in1'));
    const keys = ['a', 'b', 'c', 'd', 'e', 'f'];
    for (const key of keys) hash.route(key, 0);
    assert.deepEqual(
      log.splice(0),
      keys.map((k) =>
        Math.floor((keyGroupFor(k, maxParallelism) * 2) / maxParallelism) === 1
          ? `in1:${k}@0 key ${k}`
          : `c0:${k}@0 key ${k}`,
      ),
    );

    const rebalance = new RebalanceRouter(channels(2, log), 0);
    rebalance.deliverRecords(1, input('in1'));
    for (let i = 0; i < 3; i++) rebalance.route(i, i);
    assert.deepEqual(log.splice(0), ['c0:0@0', 'in1:1@1', 'c0:2@2']);

    const broadcast = new BroadcastRouter(channels(2, log));
    broadcast.deliverRecords(0, input('in0'));
    broadcast.route('a', 3);
    broadcast.endOfInput();
    assert.deepEqual(log.splice(0), ['in0:a@3', 'c1:a@3', 'c0:end', 'c1:end']);

    const global = new GlobalRouter(channels(2, log));
    global.deliverRecords(0, input('in0'));
    global.route('a', 3);
    assert.deepEqual(log.splice(0), ['in0:a@3']);
    assert.equal(global.directWriter(), undefined, 'only a forward router has one writer for every record');
  });
});

describe('SubtaskOutput', () => {
  it('sends main records to every main edge, side records only to their tag, events to every edge', () => {
    const log: string[] = [];
    const output = new SubtaskOutput<string>();
    const late = new OutputTag<string>('late');
    const other = new OutputTag<string>('other');
    const tapped: string[] = [];
    output.sideTap = (tag, value, timestamp) => tapped.push(`${tag}:${value}@${timestamp}`);
    output.addMain(new ForwardRouter(channel('m1', log)));
    output.collect('a', 1);
    output.addMain(new ForwardRouter(channel('m2', log)));
    output.addSide('late', new ForwardRouter(channel('s1', log)));
    output.addSide('late', new ForwardRouter(channel('s2', log)));
    output.collect('b', 2);
    output.collectSide(late, 'x', 3);
    output.collectSide(other, 'y', 4);
    assert.deepEqual(log, ['m1:a@1', 'm1:b@2', 'm2:b@2', 's1:x@3', 's2:x@3']);
    assert.deepEqual(tapped, ['late:x@3', 'other:y@4'], 'the tap sees records of tags nobody consumes');
    assert.equal(output.recordsOut, 2, 'side-output records are not counted');

    log.length = 0;
    assert.equal(output.currentWatermark, Number.NEGATIVE_INFINITY);
    output.emitWatermark(10);
    assert.equal(output.currentWatermark, 10);
    assert.equal(output.idle, false);
    output.emitWatermarkStatus(true);
    assert.equal(output.idle, true);
    output.emitBarrier(barrier);
    output.endOfInput();
    output.emitWatermarkStatus(false);
    assert.equal(output.idle, false);
    assert.deepEqual(log, [
      'm1:wm 10',
      'm2:wm 10',
      's1:wm 10',
      's2:wm 10',
      'm1:idle true',
      'm2:idle true',
      's1:idle true',
      's2:idle true',
      'm1:barrier 7',
      'm2:barrier 7',
      's1:barrier 7',
      's2:barrier 7',
      'm1:end',
      'm2:end',
      's1:end',
      's2:end',
      'm1:idle false',
      'm2:idle false',
      's1:idle false',
      's2:idle false',
    ]);
  });

  it('calls the writer of its one forward edge itself, without the router', () => {
    const log: string[] = [];
    class CountingRouter extends ForwardRouter {
      routed = 0;
      override route(value: unknown, timestamp: number): void {
        this.routed++;
        super.route(value, timestamp);
      }
    }
    const output = new SubtaskOutput<string>();
    const forward = new CountingRouter(channel('f', log));
    output.addMain(forward);
    output.collect('a', 1);
    assert.deepEqual(log, ['f:a@1']);
    assert.equal(forward.routed, 0);
    const hash = new HashRouter(channels(1, log), (v: string) => v, 8);
    const other = new SubtaskOutput<string>();
    other.addMain(hash);
    other.collect('b', 2);
    assert.deepEqual(log, ['f:a@1', 'c0:b@2 key b']);
  });

  it('with no main edge, drops main records but counts them', () => {
    const output = new SubtaskOutput<string>();
    output.collect('a', 1);
    assert.equal(output.recordsOut, 1);
  });
});
