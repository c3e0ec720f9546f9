// Logger: structured log lines Weir writes (restarts, failed checkpoints, source errors); pino-compatible.

/** Levels, lowest first (pino's names). */
export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error';

/** Fields of a log line: `operator` names the operator it concerns; the others are its values. */
export interface LogFields {
  readonly operator?: string;
  readonly [field: string]: unknown;
}

/**
 * What Weir logs through: each method takes the fields, then the message, as pino's do, so a pino logger (or a
 * child of one) can be passed as it is.
 *
 * @example
 * import pino from 'pino';
 * const env = StreamExecutionEnvironment.create({ logger: pino() });
 */
export interface Logger {
  trace(fields: LogFields, message: string): void;
  debug(fields: LogFields, message: string): void;
  info(fields: LogFields, message: string): void;
  warn(fields: LogFields, message: string): void;
  error(fields: LogFields, message: string): void;
}

/** Options of {@link createLogger}. */
export interface LoggerOptions {
  /** The lowest level written (default: `$WEIR_LOG_LEVEL`, else `info`). */
  readonly level?: LogLevel;
  /**
   * `text` (default: `$WEIR_LOG_FORMAT`, else text): `<time> <LEVEL> weir: <message> key=value …`; `json`: one
   * JSON object a line with pino's numeric levels (`level`, `time`, `msg`, then the fields).
   */
  readonly format?: 'text' | 'json';
  /** Where lines go (default: standard error). */
  readonly stream?: { write(text: string): unknown };
}

const LEVELS: readonly LogLevel[] = ['trace', 'debug', 'info', 'warn', 'error'];
/** pino's numbers for the levels. */
const PINO_LEVEL: Record<LogLevel, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50 };

function isLevel(value: unknown): value is LogLevel {
  return LEVELS.includes(value as LogLevel);
}

/** A field value in a text line: bare when it is a plain word, JSON-quoted otherwise. */
function textValue(value: unknown): string {
  const text =
    value instanceof Error ? value.message : typeof value === 'string' ? value : JSON.stringify(value);
  return /^[\w.:/@+-]*$/.test(text ?? '') && text !== '' ? text! : JSON.stringify(text);
}

/**
 * A logger writing one structured line per call to standard error (or `stream`). The default of every
 * environment; `$WEIR_LOG_LEVEL` and `$WEIR_LOG_FORMAT` change it without code.
 *
 * @example
 * const env = StreamExecutionEnvironment.create({ logger: createLogger({ level: 'debug', format: 'json' }) });
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const fromEnv = process.env.WEIR_LOG_LEVEL;
  const level = options.level ?? (isLevel(fromEnv) ? fromEnv : 'info');
  const format = options.format ?? (process.env.WEIR_LOG_FORMAT === 'json' ? 'json' : 'text');
  const stream = options.stream ?? process.stderr;
  const threshold = PINO_LEVEL[level];
  const write = (at: LogLevel, fields: LogFields, message: string): void => {
    if (PINO_LEVEL[at] < threshold) return;
    const time = Date.now();
    if (format === 'json') {
      const entries = Object.entries(fields).map(([k, v]) => [k, v instanceof Error ? v.message : v]);
      stream.write(
        `${JSON.stringify({ level: PINO_LEVEL[at], time, msg: message, ...Object.fromEntries(entries) })}\n`,
      );
      return;
    }
    let line = `${new Date(time).toISOString()} ${at.toUpperCase()} weir: ${message}`;
    for (const [key, value] of Object.entries(fields)) {
      if (value !== undefined) line += ` ${key}=${textValue(value)}`;
    }
    stream.write(`${line}\n`);
  };
  return {
    trace: (fields, message) => write('trace', fields, message),
    debug: (fields, message) => write('debug', fields, message),
    info: (fields, message) => write('info', fields, message),
    warn: (fields, message) => write('warn', fields, message),
    error: (fields, message) => write('error', fields, message),
  };
}

let standard: Logger | undefined;

/** The logger used where none was given: {@link createLogger} with its defaults, made on first use. */
export function defaultLogger(): Logger {
  standard ??= createLogger();
  return standard;
}
