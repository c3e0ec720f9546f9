// The workloads limit-p2 runs: for each, its input's record codec, how it uses the exchange and its per-thread loop.

import type { WorkloadParams } from '../../workloads/params.ts';
import { CepLoop, RollingCountLoop, StatelessLoop, TumblingWindowLoop } from './event-loops.ts';
import { BID_BY_BIDDER_CODEC, EVENT_CODEC, type RecordCodec } from './record-codecs.ts';
import { SessionWindowLoop } from './session-loop.ts';
import type { LoopShape, ThreadLoop } from './thread-loop.ts';

export interface LimitP2Entry<R> {
  readonly codec: RecordCodec<R>;
  readonly shape: LoopShape;
  create(params: WorkloadParams): ThreadLoop<R>;
}

function entry<R>(
  codec: RecordCodec<R>,
  shape: LoopShape,
  create: (params: WorkloadParams) => ThreadLoop<R>,
): LimitP2Entry<R> {
  return { codec, shape, create };
}

/** Stateless crosses nothing (no keyBy, as in weir-p2); the others are keyed and cross by key group. */
export const LIMIT_P2_WORKLOADS = {
  stateless: entry(EVENT_CODEC, { keyed: false, eventTime: false }, (p) => new StatelessLoop(p)),
  'rolling-count': entry(EVENT_CODEC, { keyed: true, eventTime: false }, () => new RollingCountLoop()),
  'tumbling-window': entry(EVENT_CODEC, { keyed: true, eventTime: true }, (p) => new TumblingWindowLoop(p)),
  'session-window': entry(
    BID_BY_BIDDER_CODEC,
    { keyed: true, eventTime: true },
    (p) => new SessionWindowLoop(p),
  ),
  cep: entry(EVENT_CODEC, { keyed: true, eventTime: true }, (p) => new CepLoop(p)),
};

export type LimitP2Workload = keyof typeof LIMIT_P2_WORKLOADS;
