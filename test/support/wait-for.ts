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

/**
 * Resolves once `condition` holds, checking after every turn of the event loop; rejects naming `what` when it still
 * does not hold after `turns` turns. For what comes without any time passing, such as a message between two ports
 * of this thread (it arrives within a turn or two): a condition still false then means it never comes (a message or
 * a credit was lost), and the test fails at once instead of hanging until the runner's timeout.
 */
export async function waitTurns(what: string, condition: () => boolean, turns = 1_000): Promise<void> {
  for (let turn = 0; !condition(); turn++) {
    if (turn === turns) throw new Error(`Still waiting for ${what} after ${turns} turns of the event loop`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}
