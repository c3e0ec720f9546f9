// Barrier alignment over input channels: blocking, replay, finished channels, abort, newer barriers, overflow.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CheckpointBarrier } from './checkpoint-barrier.ts';
import { BarrierAligner } from './barrier-aligner.ts';
import { InputChannel } from './input-channel.ts';
import type { Subtask } from './subtask.ts';
import type { SubtaskInput } from './subtask-input.ts';

const barrier = (id: number): CheckpointBarrier => ({ id, timestamp: 0, kind: 'checkpoint' });

/** A source subtask as the channels see it: a count of blocked channels downstream, and its resumptions. */
class RecordingSource {
  blockedDownstream = 0;
  resumed = 0;
  downstreamReleased(): void {
    if (--this.blockedDownstream === 0) this.resumed++;
  }
}

/**
 * The consumer end: what reaches the operator is logged in order ("a@0" a record from channel 0, "wm0=5", "end1",
 * "snapshot 1"); barriers and ends go to a real BarrierAligner over real InputChannels.
 */
class Consumer {
  readonly log: string[] = [];
  readonly declined: string[] = [];
  readonly channels: InputChannel[];
  readonly aligner: BarrierAligner;
  readonly sources: RecordingSource[];

  constructor(channels: number, maxBufferedBytes?: number, now?: () => number) {
    const consumer = this;
    this.sources = [];
    this.channels = [];
    for (let i = 0; i < channels; i++) {
      const input = {
        subtask: consumer,
        process: (value: unknown) => consumer.log.push(`${String(value)}@${i}`),
        processKeyed: (value: unknown) => consumer.log.push(`${String(value)}@${i}`),
      } as unknown as SubtaskInput;
      const channel = new InputChannel(input, i, {} as Subtask);
      const source = new RecordingSource();
      channel.sources = [source as unknown as Subtask];
      this.sources.push(source);
      this.channels.push(channel);
    }
    this.aligner = new BarrierAligner(
      this.channels,
      {
        aligned: (b) => consumer.log.push(`snapshot ${b.id}`),
        declined: (id, reason) => consumer.declined.push(`${id}: ${reason}`),
      },
      maxBufferedBytes,
      now,
    );
  }

  /** Delivers a record on channel `i` (as the producer's router would). */
  record(i: number, value: string): void {
    this.channels[i]!.process(value, 0);
  }

  processWatermark(channel: number, watermark: number): void {
    this.log.push(`wm${channel}=${watermark}`);
  }

  processWatermarkStatus(channel: number, idle: boolean): void {
    this.log.push(`idle${channel}=${idle}`);
  }

  endOfInput(channel: number): void {
    this.log.push(`end${channel}`);
    this.aligner.channelEnded(this.channels[channel]!);
  }

  processBarrier(channel: InputChannel, b: CheckpointBarrier): void {
    this.aligner.barrier(channel, b);
  }
}

describe('BarrierAligner', () => {
  it('blocks a channel that delivered the barrier and replays it after the snapshot', () => {
    const c = new Consumer(2);
    c.record(0, 'a');
    c.channels[0]!.barrier(barrier(1));
    c.record(0, 'b');
    c.channels[0]!.watermark(5);
    c.record(1, 'x');
    assert.equal(c.sources[0]!.blockedDownstream, 1);
    assert.equal(c.sources[1]!.blockedDownstream, 0);
    c.channels[1]!.barrier(barrier(1));
    c.record(1, 'y');
    assert.deepEqual(c.log, ['a@0', 'x@1', 'snapshot 1', 'b@0', 'wm0=5', 'y@1']);
    assert.equal(c.sources[0]!.blockedDownstream, 0);
    assert.equal(c.sources[0]!.resumed, 1);
    assert.equal(c.aligner.alignments, 1);
    assert.equal(c.aligner.peakBufferedEvents, 2);
    assert.ok(c.aligner.peakBufferedBytes > 0);
  });

  it('counts a channel that ended before the alignment began as aligned', () => {
    const c = new Consumer(2);
    c.channels[1]!.endOfInput();
    c.channels[0]!.barrier(barrier(1));
    c.record(0, 'a');
    assert.deepEqual(c.log, ['end1', 'snapshot 1', 'a@0']);
    assert.equal(c.sources[0]!.blockedDownstream, 0);
  });

  it('completes an alignment when the last channel it waits for ends instead of sending the barrier', () => {
    const c = new Consumer(3);
    c.channels[0]!.barrier(barrier(1));
    c.record(0, 'a');
    c.channels[1]!.barrier(barrier(1));
    c.channels[2]!.endOfInput();
    assert.deepEqual(c.log, ['end2', 'snapshot 1', 'a@0']);
    assert.deepEqual(
      c.aligner.waitingOn().map((ch) => ch.index),
      [],
    );
  });

  it('keeps an end of input that arrived on a blocked channel until the replay', () => {
    const c = new Consumer(2);
    c.channels[0]!.barrier(barrier(1));
    c.channels[0]!.endOfInput();
    assert.equal(c.channels[0]!.ended, false);
    assert.deepEqual(c.log, []);
    c.channels[1]!.barrier(barrier(1));
    assert.deepEqual(c.log, ['snapshot 1', 'end0']);
    assert.equal(c.channels[0]!.ended, true);
  });

  it('abort releases the held channels without a snapshot and ignores that barrier afterwards', () => {
    const c = new Consumer(2);
    c.channels[0]!.barrier(barrier(1));
    c.record(0, 'a');
    c.aligner.abort(1);
    assert.deepEqual(c.log, ['a@0']);
    c.channels[1]!.barrier(barrier(1));
    c.record(1, 'b');
    assert.deepEqual(c.log, ['a@0', 'b@1']);
    assert.equal(c.aligner.aligning?.id, undefined);
    assert.equal(c.sources[0]!.blockedDownstream, 0);
  });

  it('a newer barrier while aligning abandons the older checkpoint and aligns the newer one', () => {
    const c = new Consumer(2);
    c.channels[0]!.barrier(barrier(1));
    c.record(0, 'a');
    c.channels[0]!.barrier(barrier(2));
    c.record(0, 'b');
    // Channel 1 never sent barrier 1 (it was given up upstream) and now sends 2.
    c.record(1, 'x');
    c.channels[1]!.barrier(barrier(2));
    assert.deepEqual(c.log, ['x@1', 'a@0', 'snapshot 2', 'b@0']);
    assert.equal(c.aligner.alignments, 1);
  });

  it('a barrier replayed from a buffer starts the next alignment and keeps the rest of that buffer', () => {
    const c = new Consumer(2);
    c.channels[0]!.barrier(barrier(1));
    c.record(0, 'a');
    c.channels[0]!.barrier(barrier(2));
    c.record(0, 'b');
    c.channels[1]!.barrier(barrier(1));
    assert.deepEqual(c.log, ['snapshot 1', 'a@0']);
    assert.equal(c.aligner.aligning?.id, 2);
    assert.equal(c.channels[0]!.blocked, true);
    assert.equal(c.channels[0]!.bufferedEvents, 1);
    c.record(1, 'x');
    c.channels[1]!.barrier(barrier(2));
    assert.deepEqual(c.log, ['snapshot 1', 'a@0', 'x@1', 'snapshot 2', 'b@0']);
    assert.equal(c.sources[0]!.blockedDownstream, 0);
  });

  it('declines the checkpoint and releases everything when blocked channels outgrow the bound', () => {
    const c = new Consumer(2, 1_300);
    c.channels[0]!.barrier(barrier(1));
    // 16 + 2 * 100 bytes of string plus 32 of buffer slots: 248 bytes each, so the sixth crosses 1,300.
    const record = 'r'.repeat(100);
    for (let i = 0; i < 5; i++) c.record(0, record);
    assert.deepEqual(c.log, []);
    c.record(0, record);
    assert.equal(c.log.length, 6, 'the buffered records were replayed');
    assert.deepEqual(c.declined, [
      '1: blocked input channels held over 1300 bytes while aligning; the alignment was given up',
    ]);
    assert.equal(c.aligner.overflows, 1);
    assert.equal(c.channels[0]!.blocked, false);
    c.channels[1]!.barrier(barrier(1));
    assert.equal(c.aligner.alignments, 0, 'the abandoned checkpoint is not aligned later');
    assert.equal(c.aligner.aligning?.id, undefined);
    assert.equal(c.channels[1]!.blocked, false);
  });

  it('names the channels an alignment waits for', () => {
    const c = new Consumer(3);
    c.channels[1]!.barrier(barrier(4));
    assert.deepEqual(
      c.aligner.waitingOn().map((ch) => ch.index),
      [0, 2],
    );
  });
});

describe('BarrierAligner (AlignedCheckpointsTest)', () => {
  it('times each alignment on its clock: last, total and longest', () => {
    let clock = 10;
    const c = new Consumer(2, undefined, () => clock);
    c.channels[0]!.barrier(barrier(1));
    clock = 25;
    c.channels[1]!.barrier(barrier(1));
    assert.deepEqual(
      [c.aligner.lastAlignmentMs, c.aligner.alignmentMsTotal, c.aligner.maxAlignmentMs],
      [15, 15, 15],
    );
    c.channels[1]!.barrier(barrier(2));
    clock = 30;
    c.channels[0]!.barrier(barrier(2));
    assert.deepEqual(
      [c.aligner.lastAlignmentMs, c.aligner.alignmentMsTotal, c.aligner.maxAlignmentMs],
      [5, 20, 15],
    );
    c.channels[0]!.barrier(barrier(3));
    clock = 60;
    c.channels[1]!.barrier(barrier(3));
    assert.deepEqual(
      [c.aligner.lastAlignmentMs, c.aligner.alignmentMsTotal, c.aligner.maxAlignmentMs],
      [30, 50, 30],
    );
    assert.equal(c.aligner.alignments, 3);
  });

  it('holds up to 256 MiB by default', () => {
    const c = new Consumer(2);
    c.channels[0]!.barrier(barrier(1));
    for (let i = 0; i < 10; i++) c.record(0, 'r'.repeat(100));
    assert.deepEqual(c.declined, []);
    assert.equal(c.channels[0]!.bufferedEvents, 10);
  });

  it('reads the performance clock by default', () => {
    const c = new Consumer(2);
    c.channels[0]!.barrier(barrier(1));
    c.channels[1]!.barrier(barrier(1));
    assert.ok(Number.isFinite(c.aligner.lastAlignmentMs) && c.aligner.lastAlignmentMs >= 0);
  });

  it('waits on no channel when not aligning', () => {
    const c = new Consumer(2);
    assert.deepEqual(c.aligner.waitingOn(), []);
    c.channels[0]!.barrier(barrier(1));
    c.channels[1]!.barrier(barrier(1));
    assert.deepEqual(c.aligner.waitingOn(), []);
  });

  it('counts a channel once, however often it delivers the barrier or ends', () => {
    const c = new Consumer(3);
    c.aligner.barrier(c.channels[0]!, barrier(1));
    c.aligner.barrier(c.channels[0]!, barrier(1));
    c.aligner.channelEnded(c.channels[0]!);
    assert.deepEqual(c.log, []);
    c.channels[1]!.endOfInput();
    assert.deepEqual(c.log, ['end1'], 'one of three channels still owes the barrier');
    assert.deepEqual(
      c.aligner.waitingOn().map((ch) => ch.index),
      [2],
    );
    c.channels[2]!.barrier(barrier(1));
    assert.deepEqual(c.log, ['end1', 'snapshot 1']);
  });

  it('an abort of an older checkpoint leaves the alignment running', () => {
    const c = new Consumer(2);
    c.channels[0]!.barrier(barrier(2));
    c.aligner.abort(1);
    assert.equal(c.aligner.aligning?.id, 2);
    assert.equal(c.channels[0]!.blocked, true);
    c.channels[1]!.barrier(barrier(2));
    assert.deepEqual(c.log, ['snapshot 2']);
  });

  it('an abort of a newer checkpoint gives up the alignment too: its other barriers would be ignored', () => {
    const c = new Consumer(2);
    c.channels[0]!.barrier(barrier(2));
    c.record(0, 'a');
    c.aligner.abort(3);
    assert.equal(c.aligner.aligning?.id, undefined);
    assert.equal(c.channels[0]!.blocked, false);
    assert.deepEqual(c.log, ['a@0']);
    c.channels[1]!.barrier(barrier(2));
    c.channels[1]!.barrier(barrier(3));
    assert.equal(c.aligner.aligning?.id, undefined);
    c.channels[1]!.barrier(barrier(4));
    assert.equal(c.aligner.aligning?.id, 4);
  });

  it('ignores the barriers of a checkpoint aborted before they arrive, but not of later ones', () => {
    const c = new Consumer(2);
    c.aligner.abort(5);
    c.channels[0]!.barrier(barrier(5));
    assert.equal(c.aligner.aligning?.id, undefined);
    assert.equal(c.channels[0]!.blocked, false);
    c.channels[0]!.barrier(barrier(6));
    assert.equal(c.aligner.aligning?.id, 6);
  });

  it('an abort of an older checkpoint does not make its barriers current again', () => {
    const c = new Consumer(2);
    c.channels[0]!.barrier(barrier(3));
    c.channels[1]!.barrier(barrier(3));
    c.aligner.abort(1);
    c.channels[0]!.barrier(barrier(2));
    assert.equal(c.aligner.aligning?.id, undefined, 'checkpoint 2 is older than the aligned 3');
    assert.equal(c.channels[0]!.blocked, false);
  });

  it('keeps the peak buffered bytes and events of the largest alignment', () => {
    const c = new Consumer(2);
    c.channels[0]!.barrier(barrier(1));
    c.record(0, 'a');
    c.record(0, 'b');
    c.channels[1]!.barrier(barrier(1));
    // Each record: 16 + 2 bytes of string plus 32 of buffer slots.
    assert.equal(c.aligner.peakBufferedBytes, 100);
    assert.equal(c.aligner.peakBufferedEvents, 2);
    c.channels[0]!.barrier(barrier(2));
    c.record(0, 'c');
    c.channels[1]!.barrier(barrier(2));
    assert.equal(c.aligner.peakBufferedBytes, 100);
    assert.equal(c.aligner.peakBufferedEvents, 2);
  });

  it('declines only above the bound: buffers of exactly the bound are kept', () => {
    const c = new Consumer(2, 150);
    c.channels[0]!.barrier(barrier(1));
    for (const r of ['a', 'b', 'c']) c.record(0, r);
    assert.deepEqual(c.declined, []);
    assert.equal(c.channels[0]!.blocked, true);
    c.record(0, 'd');
    assert.deepEqual(c.declined, [
      '1: blocked input channels held over 150 bytes while aligning; the alignment was given up',
    ]);
  });

  it('counts what a channel blocked again mid-replay still holds towards the bound', () => {
    const c = new Consumer(2, 140);
    c.channels[0]!.barrier(barrier(1));
    c.record(0, 'a');
    c.channels[0]!.barrier(barrier(2));
    c.record(0, 'b');
    c.channels[1]!.barrier(barrier(1));
    // Replay stopped at barrier 2: 'b' (50 bytes) is still held, and counts for checkpoint 2.
    assert.equal(c.channels[0]!.bufferedBytes, 50);
    c.record(0, 'c');
    assert.deepEqual(c.declined, []);
    c.record(0, 'd');
    assert.deepEqual(c.declined, [
      '2: blocked input channels held over 140 bytes while aligning; the alignment was given up',
    ]);
  });
});

describe('InputChannel', () => {
  it('passes every event straight to the consumer while unblocked', () => {
    const c = new Consumer(1);
    const ch = c.channels[0]!;
    ch.process('a', 1);
    ch.processKeyed('b', 2, 'key', (v: unknown) => v);
    ch.watermark(3);
    ch.status(true);
    ch.status(false);
    ch.endOfInput();
    assert.deepEqual(c.log, ['a@0', 'b@0', 'wm0=3', 'idle0=true', 'idle0=false', 'end0']);
    assert.equal(ch.ended, true);
  });

  it('replays every kind of buffered event in order, then forgets the buffer', () => {
    const c = new Consumer(2);
    const ch = c.channels[0]!;
    let released = 0;
    ch.remote = { released: () => released++ };
    ch.block();
    ch.block();
    assert.equal(c.sources[0]!.blockedDownstream, 1, 'blocking twice counts once');
    ch.process('a', 1);
    ch.processKeyed('b', 2, 'key', (v: unknown) => v);
    ch.watermark(3);
    ch.status(true);
    ch.endOfInput();
    assert.equal(ch.bufferedEvents, 5);
    // Two records of 16 + 2 bytes plus 32 each, three events of 32.
    assert.equal(ch.bufferedBytes, 2 * 50 + 3 * 32);
    assert.equal(ch.ended, false);
    assert.deepEqual(c.log, []);
    ch.release();
    assert.deepEqual(c.log, ['a@0', 'b@0', 'wm0=3', 'idle0=true', 'end0']);
    assert.equal(ch.ended, true);
    assert.equal(ch.bufferedEvents, 0);
    assert.equal(ch.bufferedBytes, 0);
    assert.equal(released, 1, 'a channel from another thread is told once it is released');
    ch.release();
    assert.equal(released, 1, 'releasing an unblocked channel does nothing');
    assert.equal(c.sources[0]!.resumed, 1);
  });

  it('keeps a long buffer replayable after compaction while blocked again mid-replay', () => {
    const c = new Consumer(2);
    const ch = c.channels[0]!;
    ch.block();
    for (let i = 0; i < 1500; i++) ch.process(i, i);
    // A barrier in the buffer blocks the channel again at replay; 1,500 records still wait behind it.
    ch.barrier(barrier(1));
    for (let i = 1500; i < 3000; i++) ch.process(i, i);
    ch.release();
    assert.equal(c.log.length, 1500);
    assert.equal(c.log[1499], '1499@0');
    assert.equal(ch.blocked, true, 'the replayed barrier started an alignment that blocks this channel');
    assert.equal(ch.bufferedEvents, 1500);
    c.channels[1]!.barrier(barrier(1));
    assert.equal(c.log.length, 3001);
    assert.equal(c.log[1500], 'snapshot 1');
    assert.equal(c.log[3000], '2999@0');
    assert.equal(ch.bufferedEvents, 0);
    assert.equal(ch.bufferedBytes, 0);
  });

  it('replays records with their timestamps, also without sources to hold back', () => {
    const seen: string[] = [];
    const input = {
      subtask: {},
      process: (value: unknown, timestamp: number) => seen.push(`${String(value)}@${timestamp}`),
    } as unknown as SubtaskInput;
    const channel = new InputChannel(input, 0, {} as Subtask);
    channel.block();
    channel.process('a', 11);
    channel.processKeyed('b', 12, 'k', (v: unknown) => v);
    assert.deepEqual(seen, []);
    channel.release();
    assert.deepEqual(seen, ['a@11', 'b@12']);
  });

  it('names itself by its index and producer, counted from 1', () => {
    const input = { subtask: {} } as unknown as SubtaskInput;
    const producer = { node: { name: 'file', parallelism: 3 }, index: 1 };
    const channel = new InputChannel(input, 2, producer as never);
    assert.equal(channel.describe(), "channel 3 ('file' 2/3)");
  });
});
