// Counters: SimpleCounter, and FieldCounter over a count the record path keeps in a plain field.
import type { Counter } from '../core/metric-group.ts';

/** A counter that owns its count (Flink's SimpleCounter): what `MetricGroup.counter(name)` creates. */
export class SimpleCounter implements Counter {
  private count = 0;
  inc(n = 1): void {
    this.count += n;
  }
  dec(n = 1): void {
    this.count -= n;
  }
  getCount(): number {
    return this.count;
  }
}

/**
 * A read-only counter over a count kept elsewhere (a field the record path increments). `inc`/`dec` throw: the
 * owner of the field is the only writer.
 */
export class FieldCounter implements Counter {
  constructor(private readonly read: () => number) {}
  inc(): void {
    throw new TypeError('This counter reads a runtime count and cannot be changed');
  }
  dec(): void {
    throw new TypeError('This counter reads a runtime count and cannot be changed');
  }
  getCount(): number {
    return this.read();
  }
}
