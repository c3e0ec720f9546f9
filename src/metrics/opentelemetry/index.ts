// weir/opentelemetry: the OpenTelemetry reporter, behind its own entry point so `import 'weir'` does not load the API.
export {
  OpenTelemetryReporter,
  openTelemetryName,
  type OpenTelemetryReporterOptions,
} from './opentelemetry-reporter.ts';
