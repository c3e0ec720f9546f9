// KillSwitch: SIGKILLs its own process at a chosen moment of a job's exactly-once protocol, for crash tests.
import { writeSync } from 'node:fs';
import type { Sink, SinkWriter, SinkWriterContext } from '../../src/core/sink.ts';
import { seededRandom } from '../support/child-run.ts';

/**
 * Where a crash run dies, counted from the start of the process:
 * - `read:N`: as the N-th input record passes the switch (mid-interval: records in flight, nothing sealed);
 * - `sealed:K`: right after the K-th sink pre-commit (an interval sealed into a checkpoint not yet complete);
 * - `durable:K`: at the K-th checkpoint-complete notification, before its transaction is written (the interval
 *   is in a durable checkpoint and in no Kafka transaction);
 * - `committed:K`: right after the K-th transaction committed (the other sink subtask may be mid-transaction);
 * - `none`: never.
 * Whatever the plan, a run that reads `readCap` input records dies there (`read:<cap>`), so a fast machine cannot
 * finish the job within one run's planned moment. Events are counted per thread: in worker mode each worker
 * thread has its own switch over the subtasks it runs, and the first to reach the plan kills the process.
 */
export type KillPlan =
  { readonly at: 'read' | 'sealed' | 'durable' | 'committed'; readonly n: number } | { readonly at: 'none' };

export function parseKillPlan(text: string): KillPlan {
  if (text === 'none') return { at: 'none' };
  const [at, n] = text.split(':');
  if ((at === 'read' || at === 'sealed' || at === 'durable' || at === 'committed') && Number(n) >= 1)
    return { at, n: Number(n) };
  throw new Error(`not a kill plan: '${text}'`);
}

export function formatKillPlan(plan: KillPlan): string {
  return plan.at === 'none' ? 'none' : `${plan.at}:${plan.n}`;
}

/**
 * `count` seeded kill moments, every kind in turn: as the N-th record passes the switch (N in 100–1,599: records
 * in flight), right after the K-th sink pre-commit (a checkpoint half taken), at the K-th checkpoint-complete
 * notification before its files are committed, and right after the K-th commit (other writers mid-commit), K
 * within the first three checkpoints of a run for `writers` sink writers counted by one switch.
 */
export function seededKillPlans(count: number, seed: number, writers: number): KillPlan[] {
  const next = seededRandom(seed);
  const kinds = ['read', 'sealed', 'durable', 'committed'] as const;
  return Array.from({ length: count }, (_, i) => {
    const at = kinds[i % kinds.length]!;
    const n = at === 'read' ? 100 + Math.floor(next() * 1_500) : 1 + Math.floor(next() * 3 * writers);
    return { at, n };
  });
}

/** Counts the events of one process and kills it, synchronously, when the plan's event arrives. */
export class KillSwitch {
  private readonly counts = { read: 0, sealed: 0, durable: 0, committed: 0 };

  constructor(
    private readonly plan: KillPlan,
    private readonly readCap = Number.POSITIVE_INFINITY,
  ) {}

  /** Records one event; SIGKILLs this process if it is the planned one. */
  event(kind: 'read' | 'sealed' | 'durable' | 'committed'): void {
    const n = ++this.counts[kind];
    if (this.plan.at === kind && this.plan.n === n) this.kill(this.plan);
    else if (kind === 'read' && n === this.readCap && this.plan.at !== 'none') this.kill({ at: 'read', n });
  }

  private kill(moment: KillPlan): void {
    // Written straight to the descriptor: a pipe write is synchronous on Linux, so the parent reads this line
    // before it sees the signal (a worker thread's process.stdout is relayed through the main thread, too late).
    writeSync(1, `KILL ${formatKillPlan(moment)}\n`);
    process.kill(process.pid, 'SIGKILL');
  }

  /** The sink, unchanged, with the switch listening to its pre-commits and commits. */
  around<T>(sink: Sink<T>): Sink<T> {
    const killSwitch = this;
    const wrapped: Sink<T> = {
      createWriter(context: SinkWriterContext): SinkWriter<T> {
        const writer = sink.createWriter(context);
        return {
          write: (value, timestamp) => writer.write(value, timestamp),
          close: () => writer.close?.(),
          endOfInput: () => writer.endOfInput?.(),
          snapshotState(checkpointId) {
            const state = writer.snapshotState!(checkpointId);
            killSwitch.event('sealed');
            return state;
          },
          async notifyCheckpointComplete(checkpointId) {
            killSwitch.event('durable');
            await writer.notifyCheckpointComplete!(checkpointId);
            killSwitch.event('committed');
          },
        };
      },
    };
    if (sink.redistributesState !== undefined)
      Object.defineProperty(wrapped, 'redistributesState', { value: sink.redistributesState });
    return wrapped;
  }
}
