// AsyncTimeoutError: an async I/O call did not settle within its timeout and the function has no timeout handler.
import { WeirError } from './errors.ts';

/** Thrown (as the cause of a JobExecutionError naming the operator and the record) when an async call timed out. */
export class AsyncTimeoutError extends WeirError {
  constructor(readonly timeoutMs: number) {
    super(
      `Async function call has timed out after ${timeoutMs} ms (give the function a timeout(input) method to emit a fallback instead)`,
    );
  }
}
