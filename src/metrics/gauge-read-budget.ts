// GaugeReadBudget: reads each gauge again only after a multiple of what its last read took, for figures sent per tick.
import { performance } from 'node:perf_hooks';
import { metricKind, metricValue, type Metric } from './metric.ts';

/**
 * The largest share of a thread's time one gauge may take to be read: after a read of d ms the gauge is read again
 * no sooner than d / GAUGE_READ_SHARE ms later (500 d). A gauge counted when read (`numStateEntries`, CEP's buffer
 * gauges) walks the subtask's keys: 25-30 ms per tick on a CEP worker at load 9-10, about 3 % of its second
 * (docs/performance.md, "The numStateEntries gauge counted, not written"); read at this share it comes to a few
 * tenths of a per cent. A gauge over a field is read in microseconds, so still every tick.
 */
export const GAUGE_READ_SHARE = 0.002;

/**
 * The longest a gauge's value may stand in for a new read, however long its last read took. A read's time is the
 * clock's, so a thread descheduled on a loaded machine, a garbage collection or the first call's compilation in the
 * middle of a read makes a cheap gauge look costly: without a bound a 40 ms hiccup kept a count of zero for 20 s.
 */
export const GAUGE_MAX_STALE_MS = 5_000;

/** A gauge's last value and when it may be read again. */
interface KeptReading {
  value: number;
  nextReadAt: number;
}

/**
 * Reads metrics for figures sent on every metrics tick whether or not anything reads them (a worker's figures to
 * the main thread): counters, meters and histograms as they are (a field each), and a gauge as of its last read
 * while the time since is short beside what that read took (see {@link GAUGE_READ_SHARE}), and never longer than
 * {@link GAUGE_MAX_STALE_MS}. The time is measured per
 * gauge, so what is costly is found, not declared: two clock reads per gauge and tick.
 */
export class GaugeReadBudget {
  private readonly kept = new WeakMap<Metric, KeptReading>();

  /** The metric's value: read now, or for a gauge read lately at a cost, as read then. */
  value(metric: Metric): number {
    if (metricKind(metric) !== 'gauge') return metricValue(metric);
    const start = performance.now();
    const kept = this.kept.get(metric);
    if (kept !== undefined && start < kept.nextReadAt) return kept.value;
    const value = metricValue(metric);
    const end = performance.now();
    const nextReadAt = end + Math.min((end - start) * (1 / GAUGE_READ_SHARE - 1), GAUGE_MAX_STALE_MS);
    if (kept === undefined) this.kept.set(metric, { value, nextReadAt });
    else {
      kept.value = value;
      kept.nextReadAt = nextReadAt;
    }
    return value;
  }
}
