// Runs fast-check properties reproducibly: one fixed seed unless asked otherwise, and failures that print how to replay them.
import fc from 'fast-check';

/** The seed every property uses unless `WEIR_PROPERTY_SEED` names another. */
export const DEFAULT_PROPERTY_SEED = 20_261_201;

/**
 * Parses `WEIR_PROPERTY_SEED`: unset or empty gives {@link DEFAULT_PROPERTY_SEED}, an integer
 * gives that seed, and `random` draws a fresh one (printed with any failure, so a find can be replayed).
 */
export function propertySeed(variable: string | undefined): number {
  if (variable === undefined || variable === '') return DEFAULT_PROPERTY_SEED;
  if (variable === 'random') return (Math.random() * 0x1_0000_0000) | 0;
  const seed = Number(variable);
  if (!Number.isSafeInteger(seed)) {
    throw new Error(`WEIR_PROPERTY_SEED must be an integer or 'random', got '${variable}'`);
  }
  return seed | 0;
}

/** This process's seed: one seed for every property of a run, so a random run is replayed by the one it printed. */
export const PROPERTY_SEED = propertySeed(process.env.WEIR_PROPERTY_SEED);

/**
 * fast-check parameters with this run's seed, and `WEIR_PROPERTY_PATH` (the path a failure printed) when set, so
 * one failing property replays straight to its shrunk counterexample. Set the path only together with
 * `--test-name-pattern` naming that property: a path means nothing to another property.
 */
export function propertyParameters<Ts>(parameters: fc.Parameters<Ts> = {}): fc.Parameters<Ts> {
  const path = process.env.WEIR_PROPERTY_PATH;
  return { ...parameters, seed: PROPERTY_SEED, ...(path ? { path } : {}) };
}

/** An error thrown by a failed property; its message starts with the seed, the path and the replay command. */
export class PropertyFailedError extends Error {
  constructor(
    readonly seed: number,
    readonly path: string,
    report: string,
    cause: unknown,
  ) {
    super(
      `property failed with seed ${seed}, path "${path}"; replay: ` +
        `WEIR_PROPERTY_SEED=${seed} WEIR_PROPERTY_PATH=${path} node --import tsx --test ` +
        `--test-name-pattern '<this test>' <this file>\n${report}`,
      { cause },
    );
    this.name = 'PropertyFailedError';
  }
}

/**
 * Checks a synchronous property with {@link propertyParameters}; throws PropertyFailedError on failure.
 *
 * @example
 * assertProperty(fc.property(fc.array(fc.integer()), (xs) => xs.length >= 0), { numRuns: 200 });
 */
export function assertProperty<Ts>(property: fc.IProperty<Ts>, parameters?: fc.Parameters<Ts>): void {
  report(fc.check(property, propertyParameters(parameters)));
}

/** Checks an asynchronous property with {@link propertyParameters}; rejects with PropertyFailedError on failure. */
export async function assertAsyncProperty<Ts>(
  property: fc.IAsyncProperty<Ts>,
  parameters?: fc.Parameters<Ts>,
): Promise<void> {
  report(await fc.check(property, propertyParameters(parameters)));
}

function report<Ts>(details: fc.RunDetails<Ts>): void {
  if (!details.failed) return;
  const message = fc.defaultReportMessage(details) ?? 'property failed';
  throw new PropertyFailedError(
    details.seed,
    details.counterexamplePath ?? '',
    message,
    details.errorInstance,
  );
}
