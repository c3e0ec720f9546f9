// waitFor: polls a condition until it holds, for tests that wait on an observable state of a running job.

/**
 * Resolves with the first truthy value `probe` returns, polling every `everyMs`; rejects naming `what` after
 * `timeoutMs`. Tests use it to wait for something they can observe (a job's status, a counter), never for time.
 */
export async function waitFor<T>(
  what: string,
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 15_000,
  everyMs = 20,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
