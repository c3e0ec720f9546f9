// The error family: one base class, so callers can catch everything Weir throws and still tell kinds apart.

/** The base of every error Weir throws. `cause` carries the underlying error, when there is one. */
export class WeirError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** A job, pattern, state descriptor or option is invalid; raised when the job graph is built, not per record. */
export class ConfigurationError extends WeirError {}

/**
 * A worker thread could not take up its share of the job: the job's module failed to load there, finished loading
 * without calling `execute()`, called it twice, or built another job than the main thread. A restart would load the
 * same module and fail the same way, so the job fails at once whatever its restart strategy, as Flink fails a job on
 * a non-recoverable error without asking its restart strategy.
 */
export class JobLoadError extends ConfigurationError {}

/** Keyed state, timers or another runtime facility was used where it is not available. */
export class IllegalStateError extends WeirError {}

/** Where a failure happened: the operator, its subtask and the record being processed, if any. */
export interface FailureLocation {
  readonly operator: string;
  readonly subtask: number;
  readonly parallelism: number;
  /** The record being processed, printed and truncated, or undefined (e.g. in a timer callback). */
  readonly record?: string;
  /** The event timestamp of that record, or the timer's timestamp. */
  readonly timestamp?: number;
  /** What the operator was doing when it was not processing a record, e.g. "watermark 1000". */
  readonly activity?: string;
}

/**
 * A user function (or an operator) failed while the job ran. The message names the operator, the subtask and the
 * record; the original error is the `cause`. `execute()` rejects with this error.
 */
export class JobExecutionError extends WeirError {
  constructor(
    readonly location: FailureLocation,
    cause: unknown,
  ) {
    const what =
      location.record !== undefined
        ? ` while processing record ${location.record}`
        : location.activity !== undefined
          ? ` while processing ${location.activity}`
          : '';
    const at =
      location.timestamp !== undefined && !Number.isNaN(location.timestamp)
        ? ` (timestamp ${location.timestamp})`
        : '';
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(
      `Operator '${location.operator}' (subtask ${location.subtask + 1}/${location.parallelism}) failed${what}${at}: ${reason}`,
      { cause },
    );
  }
}

/**
 * A running job can make no further progress before it finished: no source can be polled and nothing that could
 * unblock it (a timer, an I/O completion, a barrier) is pending. `waits` says what each unfinished subtask waits
 * for, e.g. "'out' (1/1) waits for a barrier from channel 2 ('file' 1/1) since checkpoint 3".
 */
export class JobStalledError extends WeirError {
  constructor(
    readonly waits: readonly string[],
    context = 'The job can make no progress',
  ) {
    super(`${context}: ${waits.length > 0 ? waits.join('; ') : 'no subtask reports what it waits for'}`);
  }
}

/** A source could not parse an input record; names the file and line. */
export class MalformedRecordError extends WeirError {
  constructor(
    readonly file: string,
    readonly line: number,
    readonly text: string,
    cause: unknown,
  ) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(`Malformed record at ${file}:${line}: ${reason} — ${truncate(text, 200)}`, { cause });
  }
}

/** Prints a value for an error message, truncated so a huge record cannot flood a log. */
export function describeRecord(value: unknown, max = 200): string {
  let text: string;
  try {
    text =
      typeof value === 'string'
        ? JSON.stringify(value)
        : typeof value === 'bigint'
          ? `${value}n`
          : (JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v)) ??
            String(value));
  } catch {
    text = String(value);
  }
  return truncate(text, max);
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text;
}
