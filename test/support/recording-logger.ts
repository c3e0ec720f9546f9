// RecordingLogger: a Logger that keeps every line (level, message, fields) for tests to check.
import type { LogFields, Logger, LogLevel } from '../../src/core/logger.ts';

/** One logged line. */
export interface LoggedLine {
  readonly level: LogLevel;
  readonly message: string;
  readonly fields: LogFields;
}

/** Keeps what is logged instead of writing it. */
export class RecordingLogger implements Logger {
  readonly lines: LoggedLine[] = [];
  trace(fields: LogFields, message: string): void {
    this.lines.push({ level: 'trace', message, fields });
  }
  debug(fields: LogFields, message: string): void {
    this.lines.push({ level: 'debug', message, fields });
  }
  info(fields: LogFields, message: string): void {
    this.lines.push({ level: 'info', message, fields });
  }
  warn(fields: LogFields, message: string): void {
    this.lines.push({ level: 'warn', message, fields });
  }
  error(fields: LogFields, message: string): void {
    this.lines.push({ level: 'error', message, fields });
  }
  /** The messages, in order. */
  get messages(): string[] {
    return this.lines.map((l) => l.message);
  }
}
