// watchForStall: notices when the process has nothing left to run while a job is still unfinished.

/**
 * Calls `onStall` when Node's event loop empties (its `beforeExit` event) while the watch is active: nothing is
 * scheduled — no timer, no I/O, no pending source read — so a job still waiting would never settle, and the
 * process would exit with an unsettled promise (exit code 13) and no word of why. `onStall` fails the job with
 * what each subtask waits for instead; that schedules the rejection, and the process goes on to report it.
 * Returns the function that ends the watch.
 */
export function watchForStall(onStall: () => void): () => void {
  const listener = (): void => onStall();
  process.on('beforeExit', listener);
  return () => {
    process.off('beforeExit', listener);
  };
}
