// Workload 5 (sessions per bidder, 10 s gap) on one thread of limit-p2: the limit's loop (bench/limit/session-window.ts)
// for the bidders of the thread's key groups, firing on the thread's watermark (the minimum of both sources').

import { ChecksumAccumulator, hashSession } from '../../workloads/checksum.ts';
import { type Bid, newBid } from '../../workloads/generator.ts';
import type { WorkloadParams } from '../../workloads/params.ts';
import { Session } from '../session-window.ts';
import { TimerHeap } from '../timer-heap.ts';
import type { ThreadLoop } from './thread-loop.ts';

export class SessionWindowLoop implements ThreadLoop<Bid> {
  readonly sink = new ChecksumAccumulator();
  private readonly gap: number;
  // bidder -> first open session, or null; entries are never deleted (V8's Map is slow under delete/insert churn).
  private readonly open = new Map<number, Session | null>();
  private readonly timers = new TimerHeap<Session>();

  constructor(params: WorkloadParams) {
    this.gap = params.session.gapMs;
  }

  newRecord(): Bid {
    return newBid();
  }

  own(bid: Bid): void {
    const open = this.open;
    const ts = bid.ts;
    const end = ts + this.gap;
    const head = open.get(bid.bidder);
    // Merge [ts, end) into the first intersecting session, and that one with any other it now intersects.
    let target: Session | null = null;
    for (let s = head ?? null; s !== null; s = s.next) {
      if (s.start <= end && s.end >= ts) {
        target = s;
        break;
      }
    }
    if (target === null) {
      const session = new Session(bid.bidder, ts, end, 1);
      this.timers.push(session.scheduledAt, session);
      if (head === undefined || head === null) open.set(bid.bidder, session);
      else {
        session.next = head.next;
        head.next = session;
      }
    } else {
      target.count++;
      if (ts < target.start) target.start = ts;
      if (end > target.end) target.end = end;
      if (head !== undefined && head !== null && head.next !== null) this.mergeAround(target);
    }
  }

  received(bid: Bid): void {
    this.own(bid);
  }

  watermark(watermark: number): void {
    if (watermark >= this.timers.peekTime()) this.fireUpTo(watermark);
  }

  finish(): void {
    this.fireUpTo(Infinity);
  }

  private fireUpTo(watermark: number): void {
    const timers = this.timers;
    while (timers.size > 0 && timers.peekTime() <= watermark) {
      const session = timers.pop();
      if (session.closed) continue;
      if (session.end - 1 > session.scheduledAt) {
        session.scheduledAt = session.end - 1; // extended since it was queued (lazy re-schedule)
        timers.push(session.scheduledAt, session);
        continue;
      }
      this.unlink(session);
      this.sink.add(hashSession(session.bidder, session.start, session.end, session.count));
    }
  }

  private unlink(session: Session): void {
    session.closed = true;
    const head = this.open.get(session.bidder) as Session;
    if (head === session) {
      this.open.set(session.bidder, session.next);
      return;
    }
    let previous = head;
    while (previous.next !== session) previous = previous.next as Session;
    previous.next = session.next;
  }

  /** Absorbs into `target` every other open session of its bidder that intersects it, until none does. */
  private mergeAround(target: Session): void {
    let merged = true;
    while (merged) {
      merged = false;
      for (let s: Session | null = this.open.get(target.bidder) as Session; s !== null; s = s.next) {
        if (s !== target && s.start <= target.end && s.end >= target.start) {
          target.count += s.count;
          if (s.start < target.start) target.start = s.start;
          if (s.end > target.end) target.end = s.end;
          this.unlink(s);
          merged = true;
          break;
        }
      }
    }
  }
}
