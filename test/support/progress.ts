// Progress: counts the records a running job has processed, so a test waits on progress, not on a timer.

/** `reached` resolves once `record()` was called `count` times (from inside the job, e.g. in a map). */
export class Progress {
  private seen = 0;
  private resolve!: () => void;
  readonly reached = new Promise<void>((resolve) => (this.resolve = resolve));

  constructor(private readonly count: number) {}

  record(): void {
    if (++this.seen === this.count) this.resolve();
  }
}
