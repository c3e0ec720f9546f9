// Limit for workload 5 (Nexmark q11: bids per bidder in event-time sessions with a 10 s gap): isolates
// session merging and timer-driven firing. Per bidder a short list of open sessions; a bid opens
// [ts, ts + gap) and merges every session it intersects, touching ends included, as Flink's
// TimeWindow.intersects does. A session fires when the watermark reaches end - 1.
// Run: npm run bench -- --system limit --workload session-window

import { ChecksumAccumulator, hashSession, type WorkloadResult } from '../workloads/checksum.ts';
import { fillBid, newBid } from '../workloads/generator.ts';
import type { WorkloadParams } from '../workloads/params.ts';
import { firstProbeIndex, hitProbe } from '../workloads/probe.ts';
import { TimerHeap } from './timer-heap.ts';

/** One open session of a bidder (also the session of limit-p2's loop, bench/limit/p2/session-loop.ts). */
export class Session {
  /** end - 1 at the time the session was put in the timer heap; the heap re-queues it if end grew. */
  scheduledAt: number;
  closed = false;
  /** The bidder's next open session: almost always null, so the common case is one Map lookup. */
  next: Session | null = null;
  constructor(
    readonly bidder: number,
    public start: number,
    public end: number,
    public count: number,
  ) {
    this.scheduledAt = end - 1;
  }
}

export async function sessionWindowLimit(params: WorkloadParams): Promise<WorkloadResult> {
  const config = params.bids;
  const gap = params.session.gapMs;
  const bound = config.outOfOrdernessMs;
  const sink = new ChecksumAccumulator();
  // bidder -> first open session, or null. Entries are never deleted: V8's Map pays dearly for delete +
  // re-insert churn (measured 4x on 100k keys), and a bidder's entry is reused by its next session.
  const open = new Map<number, Session | null>();
  const timers = new TimerHeap<Session>();
  let maxTs = -Infinity;
  const bid = newBid();
  let probeAt = firstProbeIndex(params.probe);

  const unlink = (session: Session): void => {
    session.closed = true;
    const head = open.get(session.bidder) as Session;
    if (head === session) {
      open.set(session.bidder, session.next);
      return;
    }
    let previous = head;
    while (previous.next !== session) previous = previous.next as Session;
    previous.next = session.next;
  };

  const fireUpTo = (watermark: number): void => {
    while (timers.size > 0 && timers.peekTime() <= watermark) {
      const session = timers.pop();
      if (session.closed) continue;
      if (session.end - 1 > session.scheduledAt) {
        session.scheduledAt = session.end - 1; // extended since it was queued (lazy re-schedule)
        timers.push(session.scheduledAt, session);
        continue;
      }
      unlink(session);
      sink.add(hashSession(session.bidder, session.start, session.end, session.count));
    }
  };

  for (let i = 0; i < params.events; i++) {
    if (i === probeAt) probeAt = hitProbe(params.probe, i);
    fillBid(config, i, bid);
    const ts = bid.ts;
    const end = ts + gap;
    const head = open.get(bid.bidder);
    // Merge the new window [ts, end) into the first intersecting session; merge that one with any other
    // session it now intersects (rare: needs an out-of-order bid bridging two sessions).
    let target: Session | null = null;
    for (let s = head ?? null; s !== null; s = s.next) {
      if (s.start <= end && s.end >= ts) {
        target = s;
        break;
      }
    }
    if (target === null) {
      const session = new Session(bid.bidder, ts, end, 1);
      timers.push(session.scheduledAt, session);
      if (head === undefined || head === null) open.set(bid.bidder, session);
      else {
        session.next = head.next;
        head.next = session;
      }
    } else {
      target.count++;
      if (ts < target.start) target.start = ts;
      if (end > target.end) target.end = end;
      if (head !== undefined && head !== null && head.next !== null) mergeAround(target, open, unlink);
    }
    if (ts > maxTs) {
      maxTs = ts;
      if (maxTs - bound - 1 >= timers.peekTime()) fireUpTo(maxTs - bound - 1);
    }
  }
  fireUpTo(Infinity);
  return sink.result(params.events);
}

/** Absorbs into `target` every other open session of its bidder that intersects it, until none does. */
function mergeAround(
  target: Session,
  open: Map<number, Session | null>,
  unlink: (session: Session) => void,
): void {
  let merged = true;
  while (merged) {
    merged = false;
    // unlink never removes target, so the bidder still has a head; restart the walk after each merge.
    for (let s: Session | null = open.get(target.bidder) as Session; s !== null; s = s.next) {
      if (s !== target && s.start <= target.end && s.end >= target.start) {
        target.count += s.count;
        if (s.start < target.start) target.start = s.start;
        if (s.end > target.end) target.end = s.end;
        unlink(s);
        merged = true;
        break;
      }
    }
  }
}
