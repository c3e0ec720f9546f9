// PrometheusReporter: serves a job's metrics in Prometheus' text exposition format (prom-client), like Flink's.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Gauge, Registry } from 'prom-client';
import type { Counter, Gauge as WeirGauge, Histogram, Meter, MetricGroup } from '../../core/metric-group.ts';
import { metricKind, type Metric } from '../metric.ts';
import { MetricGroupImpl } from '../metric-group.ts';
import type { MetricReporter } from '../metric-reporter.ts';

/** Options of {@link PrometheusReporter.start}. */
export interface PrometheusReporterOptions {
  /** Port of the `/metrics` endpoint (Flink's default 9249; 0 picks a free port). */
  readonly port?: number;
  /** Address to bind (default 127.0.0.1: metrics name operators and jobs, so they are not public by default). */
  readonly host?: string;
}

interface Series {
  readonly metric: Metric;
  readonly labels: Record<string, string>;
}

/** Quantiles reported for histograms (Flink's Prometheus reporter reports the same). */
const QUANTILES = [0.5, 0.75, 0.95, 0.98, 0.99, 0.999];

/**
 * Flink's PrometheusReporter: every metric becomes a Prometheus gauge named
 * `weir_<scope>_<user groups>_<name>` (scope `job` or `operator`), with the group's variables as labels (`job_id`,
 * `job_name`, `operator_id`, `operator_name`, `subtask_index`). Counters are exported as gauges, as Flink does
 * (they are read from fields and may restart with a job attempt); meters as their rate; histograms as a
 * `quantile`-labelled gauge plus `_count`. Values are read at scrape time, never pushed.
 *
 * @example
 * const prometheus = await PrometheusReporter.start({ port: 9249 });
 * const env = StreamExecutionEnvironment.create({ metrics: { reporters: [prometheus] } });
 * // curl http://127.0.0.1:9249/metrics
 */
export class PrometheusReporter implements MetricReporter {
  private readonly registry = new Registry();
  private readonly series = new Map<string, Map<Metric, Series>>();
  private readonly gauges = new Map<string, Gauge>();
  private server: Server | undefined = undefined;

  /** Creates a reporter and starts its HTTP endpoint; resolves once it listens. */
  static async start(options: PrometheusReporterOptions = {}): Promise<PrometheusReporter> {
    const reporter = new PrometheusReporter();
    await reporter.listen(options.port ?? 9249, options.host ?? '127.0.0.1');
    return reporter;
  }

  /** The port the endpoint listens on (undefined before `start`/`listen`). */
  get port(): number | undefined {
    return (this.server?.address() as AddressInfo | null)?.port;
  }

  notifyOfAddedMetric(metric: Metric, name: string, group: MetricGroup): void {
    const promName = prometheusName(group, name);
    const labels = { ...group.getAllVariables() };
    const labelNames = Object.keys(labels).sort();
    let gauge = this.gauges.get(promName);
    if (gauge === undefined) {
      const series = new Map<Metric, Series>();
      this.series.set(promName, series);
      const histogram = metricKind(metric) === 'histogram';
      gauge = new Gauge({
        name: promName,
        help: `${name} (${group instanceof MetricGroupImpl ? group.scope : 'operator'} scope)`,
        labelNames: histogram ? [...labelNames, 'quantile'] : labelNames,
        registers: [this.registry],
        collect() {
          this.reset();
          for (const s of series.values()) collectInto(this, s);
        },
      });
      this.gauges.set(promName, gauge);
      if (histogram) {
        new Gauge({
          name: `${promName}_count`,
          help: `${name}: number of values recorded`,
          labelNames,
          registers: [this.registry],
          collect() {
            this.reset();
            for (const s of series.values()) this.set(s.labels, (s.metric as Histogram).getCount());
          },
        });
      }
    }
    this.series.get(promName)!.set(metric, { metric, labels });
  }

  notifyOfRemovedMetric(metric: Metric, name: string, group: MetricGroup): void {
    this.series.get(prometheusName(group, name))?.delete(metric);
  }

  /** The current metrics in the text exposition format (what `/metrics` serves). */
  metrics(): Promise<string> {
    return this.registry.metrics();
  }

  /** The content type of {@link metrics}. */
  get contentType(): string {
    return this.registry.contentType;
  }

  /** Starts the HTTP endpoint (`/metrics`; anything else is 404). */
  listen(port: number, host = '127.0.0.1'): Promise<void> {
    const server = createServer((req, res) => {
      if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
        res.writeHead(404).end();
        return;
      }
      this.metrics().then(
        (text) => res.writeHead(200, { 'content-type': this.contentType }).end(text),
        (error: unknown) => res.writeHead(500).end(String(error)),
      );
    });
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
  }

  /** Stops the endpoint. */
  close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server === undefined) return Promise.resolve();
    return new Promise((resolve) => server.close(() => resolve()));
  }
}

function collectInto(gauge: Gauge, series: Series): void {
  const metric = series.metric;
  switch (metricKind(metric)) {
    case 'counter':
      gauge.set(series.labels, (metric as Counter).getCount());
      return;
    case 'meter':
      gauge.set(series.labels, (metric as Meter).getRate());
      return;
    case 'histogram': {
      const stats = (metric as Histogram).getStatistics();
      for (const q of QUANTILES) gauge.set({ ...series.labels, quantile: String(q) }, stats.getQuantile(q));
      return;
    }
    default: {
      const value = (metric as WeirGauge<unknown>).getValue();
      const n = typeof value === 'number' ? value : typeof value === 'boolean' ? Number(value) : Number.NaN;
      // A gauge without a value yet (a watermark lag before the first watermark) is left out of the scrape.
      if (!Number.isNaN(n)) gauge.set(series.labels, n);
    }
  }
}

/** `weir_<scope>_<user groups>_<name>`, with characters Prometheus does not allow replaced by `_`. */
export function prometheusName(group: MetricGroup, name: string): string {
  const impl = group instanceof MetricGroupImpl ? group : undefined;
  const parts = ['weir', impl?.scope ?? 'operator', ...(impl?.userPath ?? []), name];
  return parts.join('_').replace(/[^a-zA-Z0-9_:]/g, '_');
}
