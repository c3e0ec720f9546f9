// weir/prometheus: the Prometheus reporter, behind its own entry point so `import 'weir'` does not load prom-client.
export { PrometheusReporter, prometheusName, type PrometheusReporterOptions } from './prometheus-reporter.ts';
