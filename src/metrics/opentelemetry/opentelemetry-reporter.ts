// OpenTelemetryReporter: hands a job's metrics to OpenTelemetry's metrics API as observable instruments.
import {
  metrics as otelMetrics,
  ValueType,
  type Attributes,
  type Meter as OtelMeter,
  type MeterProvider,
  type Observable,
  type ObservableResult,
} from '@opentelemetry/api';
import type { Counter, Gauge, Histogram, Meter, MetricGroup } from '../../core/metric-group.ts';
import { metricKind, type Metric, type MetricKind } from '../metric.ts';
import { MetricGroupImpl } from '../metric-group.ts';
import type { MetricReporter } from '../metric-reporter.ts';

/** Options of {@link OpenTelemetryReporter}. */
export interface OpenTelemetryReporterOptions {
  /**
   * Where the instruments are created (an SDK `MeterProvider` with its readers and exporters). Default: the
   * global provider (`metrics.getMeterProvider()`), which is a no-op until an SDK registers one.
   */
  readonly meterProvider?: MeterProvider;
  /** The instrumentation scope's name (default `weir`). */
  readonly meterName?: string;
}

/** Quantiles reported for histograms (those Flink's reporters report). */
const QUANTILES = [0.5, 0.75, 0.95, 0.98, 0.99, 0.999];

/** The metrics registered under one instrument name, with their attributes. */
type SeriesSet = Map<Metric, Attributes>;

/** An instrument and the callback that observes its series. */
interface Instrument {
  readonly observable: Observable;
  readonly callback: (result: ObservableResult) => void;
}

/**
 * Reports Weir's metrics through OpenTelemetry's metrics API: every metric becomes an asynchronous instrument named
 * `weir.<scope>.<user groups>.<name>` (scope `job` or `operator`, e.g. `weir.operator.numRecordsIn`), with the
 * group's variables as attributes (`job_id`, `job_name`, `operator_id`, `operator_name`, `subtask_index`). Values
 * are read only when the SDK collects (its reader's interval), never pushed from the record path:
 *
 * - a counter is an observable counter (a monotonic sum; a restarted attempt starts it from 0 again, which
 *   backends read as a counter reset);
 * - a gauge is an observable gauge (numeric and boolean values; others, and NaN, are left out);
 * - a meter is an observable gauge of its rate per second, plus `<name>.count`, an observable counter of its
 *   events;
 * - a histogram is an observable gauge with a `quantile` attribute (0.5 … 0.999), plus `<name>.count`. OpenTelemetry
 *   has no asynchronous histogram, and Weir's histograms keep a window of values, not buckets.
 *
 * The reporter depends only on `@opentelemetry/api`; the application owns the SDK (`@opentelemetry/sdk-metrics`),
 * its exporters and its shutdown.
 *
 * @example
 * import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
 * import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
 * const provider = new MeterProvider({
 *   readers: [new PeriodicExportingMetricReader({ exporter: new OTLPMetricExporter(), exportIntervalMillis: 10_000 })],
 * });
 * const env = StreamExecutionEnvironment.create({
 *   metrics: { reporters: [new OpenTelemetryReporter({ meterProvider: provider })] },
 * });
 */
export class OpenTelemetryReporter implements MetricReporter {
  private readonly meter: OtelMeter;
  private readonly series = new Map<string, SeriesSet>();
  private readonly instruments: Instrument[] = [];

  constructor(options: OpenTelemetryReporterOptions = {}) {
    const provider = options.meterProvider ?? otelMetrics.getMeterProvider();
    this.meter = provider.getMeter(options.meterName ?? 'weir');
  }

  notifyOfAddedMetric(metric: Metric, name: string, group: MetricGroup): void {
    const kind = metricKind(metric);
    const instrumentName = openTelemetryName(group, name);
    let series = this.series.get(instrumentName);
    if (series === undefined) {
      series = new Map();
      this.series.set(instrumentName, series);
      this.createInstruments(instrumentName, name, group, kind, series);
    }
    series.set(metric, { ...group.getAllVariables() });
  }

  notifyOfRemovedMetric(metric: Metric, name: string, group: MetricGroup): void {
    this.series.get(openTelemetryName(group, name))?.delete(metric);
  }

  /**
   * Detaches every instrument's callback: nothing is observed afterwards. The meter provider stays the
   * application's to flush and shut down.
   */
  close(): void {
    for (const { observable, callback } of this.instruments) observable.removeCallback(callback);
    this.instruments.length = 0;
    this.series.clear();
  }

  /**
   * One instrument per name, created with the first metric of that name (OpenTelemetry instruments cannot be
   * removed; an instrument whose metrics all left observes nothing).
   */
  private createInstruments(
    instrumentName: string,
    name: string,
    group: MetricGroup,
    kind: MetricKind,
    series: SeriesSet,
  ): void {
    const scope = group instanceof MetricGroupImpl ? group.scope : 'operator';
    const description = `${name} (${scope} scope)`;
    switch (kind) {
      case 'counter':
        this.observe(
          this.meter.createObservableCounter(instrumentName, { description, valueType: ValueType.INT }),
          series,
          (result, metric, attributes) => result.observe((metric as Counter).getCount(), attributes),
        );
        return;
      case 'gauge':
        this.observe(
          this.meter.createObservableGauge(instrumentName, { description }),
          series,
          (result, metric, attributes) => {
            const value = (metric as Gauge<unknown>).getValue();
            const n =
              typeof value === 'number' ? value : typeof value === 'boolean' ? Number(value) : Number.NaN;
            // A gauge without a value yet (a watermark lag before the first watermark) is left out.
            if (!Number.isNaN(n)) result.observe(n, attributes);
          },
        );
        return;
      case 'meter':
        this.observe(
          this.meter.createObservableGauge(instrumentName, { description, unit: '1/s' }),
          series,
          (result, metric, attributes) => result.observe((metric as Meter).getRate(), attributes),
        );
        this.observe(
          this.meter.createObservableCounter(`${instrumentName}.count`, {
            description: `${name}: events marked`,
            valueType: ValueType.INT,
          }),
          series,
          (result, metric, attributes) => result.observe((metric as Meter).getCount(), attributes),
        );
        return;
      case 'histogram':
        this.observe(
          this.meter.createObservableGauge(instrumentName, { description }),
          series,
          (result, metric, attributes) => {
            const stats = (metric as Histogram).getStatistics();
            for (const q of QUANTILES) result.observe(stats.getQuantile(q), { ...attributes, quantile: q });
          },
        );
        this.observe(
          this.meter.createObservableCounter(`${instrumentName}.count`, {
            description: `${name}: values recorded`,
            valueType: ValueType.INT,
          }),
          series,
          (result, metric, attributes) => result.observe((metric as Histogram).getCount(), attributes),
        );
        return;
    }
  }

  private observe(
    observable: Observable,
    series: SeriesSet,
    read: (result: ObservableResult, metric: Metric, attributes: Attributes) => void,
  ): void {
    const callback = (result: ObservableResult): void => {
      for (const [metric, attributes] of series) read(result, metric, attributes);
    };
    observable.addCallback(callback);
    this.instruments.push({ observable, callback });
  }
}

/**
 * `weir.<scope>.<user groups>.<name>`, with characters OpenTelemetry's instrument names do not allow (anything but
 * letters, digits, `_`, `.`, `-` and `/`) replaced by `_`.
 */
export function openTelemetryName(group: MetricGroup, name: string): string {
  const impl = group instanceof MetricGroupImpl ? group : undefined;
  const parts = ['weir', impl?.scope ?? 'operator', ...(impl?.userPath ?? []), name];
  return parts.join('.').replace(/[^a-zA-Z0-9_./-]/g, '_');
}
