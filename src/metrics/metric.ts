// Metric: the four kinds of metric and how to tell them apart at run time.
import type { Counter, Gauge, Histogram, Meter } from '../core/metric-group.ts';

/** Any metric a group can hold. */
export type Metric = Counter | Gauge<unknown> | Histogram | Meter;

/** The kind of a metric, as reporters and the REST API name it. */
export type MetricKind = 'counter' | 'gauge' | 'histogram' | 'meter';

/** Tells a metric's kind by its methods (structural types: user metrics need not extend Weir's classes). */
export function metricKind(metric: Metric): MetricKind {
  const m = metric as unknown as Record<string, unknown>;
  if (typeof m.getRate === 'function') return 'meter';
  if (typeof m.getStatistics === 'function') return 'histogram';
  if (typeof m.getCount === 'function') return 'counter';
  if (typeof m.getValue === 'function') return 'gauge';
  throw new TypeError('Not a metric: expected a Counter, Gauge, Histogram or Meter');
}

/** A metric's current value as a number (histograms: their count; non-numeric gauges: NaN). */
export function metricValue(metric: Metric): number {
  switch (metricKind(metric)) {
    case 'meter':
      return (metric as Meter).getRate();
    case 'histogram':
      return (metric as Histogram).getCount();
    case 'counter':
      return (metric as Counter).getCount();
    default: {
      const value = (metric as Gauge<unknown>).getValue();
      return typeof value === 'number' ? value : typeof value === 'boolean' ? Number(value) : Number.NaN;
    }
  }
}
