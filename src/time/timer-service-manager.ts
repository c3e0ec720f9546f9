// TimerServiceManager: the named timer services of one operator subtask, advanced together and snapshotted by key group.
import { deserialize, serialize } from 'node:v8';
import type { KeyedStateBackend, KeyGroupSnapshot } from '../state/keyed-state-backend.ts';
import { keyGroupFor, type NormalizedKey } from '../state/key-hash.ts';
import type { NamespaceSerializer } from '../state/namespace.ts';
import type { ProcessingTimeClock } from '../core/clock.ts';
import type { Triggerable } from './internal-timer-service.ts';
import { InternalTimerServiceImpl } from './internal-timer-service-impl.ts';
import type { HeapTimer } from './timer-heap.ts';

/** A timer as a snapshot stores it: [service name, 0 = event / 1 = processing, timestamp, key, key form, namespace]. */
type StoredTimer = [string, 0 | 1, number, NormalizedKey, unknown, Uint8Array];

/**
 * Owns the timer services of one operator subtask (Flink's InternalTimeServiceManager). A service is created by
 * name on first request; timers restored before that wait until it is, since operators ask in `open`.
 */
export class TimerServiceManager {
  readonly services = new Map<string, InternalTimerServiceImpl<any, any>>();
  private pending: StoredTimer[] = [];

  constructor(
    private readonly backend: KeyedStateBackend,
    private readonly clock: ProcessingTimeClock,
    private readonly guard: (fire: () => void) => void,
  ) {}

  getInternalTimerService<K, N>(
    name: string,
    namespaceSerializer: NamespaceSerializer<N>,
    triggerable: Triggerable<K, N>,
  ): InternalTimerServiceImpl<K, N> {
    let service = this.services.get(name);
    if (service === undefined) {
      service = new InternalTimerServiceImpl<K, N>(
        name,
        this.backend,
        this.clock,
        namespaceSerializer,
        triggerable,
      );
      service.guard = this.guard;
      this.services.set(name, service);
      this.loadPending(service);
      service.start();
    }
    return service as InternalTimerServiceImpl<K, N>;
  }

  advanceWatermark(watermark: number): void {
    for (const service of this.services.values()) service.advanceWatermark(watermark);
  }

  numEventTimeTimers(): number {
    let n = 0;
    for (const s of this.services.values()) n += s.numEventTimeTimers();
    return n + this.pending.filter((t) => t[1] === 0).length;
  }

  numProcessingTimeTimers(): number {
    let n = 0;
    for (const s of this.services.values()) n += s.numProcessingTimeTimers();
    return n + this.pending.filter((t) => t[1] === 1).length;
  }

  /**
   * Calls `visit` for every pending timer of the given domain in every service created so far, with the service,
   * in firing order per service. For introspection (test harnesses); O(timers).
   */
  forEachTimer(
    domain: 'event' | 'processing',
    visit: (service: InternalTimerServiceImpl<unknown, unknown>, timer: HeapTimer<unknown>) => void,
  ): void {
    for (const service of this.services.values()) {
      const heap = domain === 'event' ? service.eventTimers : service.processingTimers;
      for (const timer of heap.values()) visit(service, timer);
    }
  }

  snapshot(maxParallelism: number): KeyGroupSnapshot[] {
    const byGroup = new Map<number, StoredTimer[]>();
    const add = (t: StoredTimer): void => {
      const kg = keyGroupFor(t[3], maxParallelism);
      let list = byGroup.get(kg);
      if (list === undefined) byGroup.set(kg, (list = []));
      list.push(t);
    };
    for (const [name, service] of this.services) {
      const ns = service.namespaceSerializer.serializer;
      const store = (domain: 0 | 1) => (timer: HeapTimer<unknown>) =>
        add([name, domain, timer.timestamp, timer.normalizedKey, timer.key, ns.serialize(timer.namespace)]);
      // In firing order: a restore adds them back in this order, so timers of one timestamp keep their order.
      service.eventTimers.values().forEach(store(0));
      service.processingTimers.values().forEach(store(1));
    }
    this.pending.forEach(add);
    return [...byGroup]
      .sort((a, b) => a[0] - b[0])
      .map(([keyGroup, timers]) => ({ keyGroup, bytes: new Uint8Array(serialize(timers)) }));
  }

  restore(snapshots: Iterable<KeyGroupSnapshot>): void {
    for (const { keyGroup, bytes } of snapshots) {
      if (!this.backend.keyGroupRange.contains(keyGroup)) continue;
      for (const t of deserialize(bytes) as StoredTimer[]) this.pending.push(t);
    }
    for (const service of this.services.values()) this.loadPending(service);
  }

  stop(): void {
    for (const service of this.services.values()) service.stop();
  }

  private loadPending(service: InternalTimerServiceImpl<any, any>): void {
    const rest: StoredTimer[] = [];
    for (const t of this.pending) {
      if (t[0] !== service.name) {
        rest.push(t);
        continue;
      }
      const namespace = service.namespaceSerializer.serializer.deserialize(t[5]);
      const heap = t[1] === 0 ? service.eventTimers : service.processingTimers;
      heap.add(t[2], t[4], t[3], namespace);
    }
    this.pending = rest;
  }
}
