export function isPromise(result: void | Promise<void>): result is Promise<void> {
  return result !== undefined && typeof (result as Promise<void>).then === 'function';
}

/**
 * The promises a task's processors and punctuators returned since the last drain. Each is caught
 * at once, so that a rejection never goes unhandled while earlier ones are awaited; the first
 * error wins, as the one that stopped the record.
 */
export class PendingWork {
  private pending: Promise<void>[] = [];
  private error: unknown;

  /** `wrap` turns a rejection into the error the task reports (with its node and record). */
  track(promise: Promise<void>, wrap: (error: unknown) => unknown): void {
    this.pending.push(
      promise.then(undefined, (error: unknown) => {
        this.error ??= wrap(error);
      }),
    );
  }

  get busy(): boolean {
    return this.pending.length > 0 || this.error !== undefined;
  }

  /** Awaits everything, including what the awaited work added meanwhile; then throws the first error. */
  async drain(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending;
      this.pending = [];
      await Promise.all(batch);
    }
    if (this.error !== undefined) {
      const error = this.error;
      this.error = undefined;
      throw error;
    }
  }

  /** Forgets the work of a rolled-back record. */
  clear(): void {
    this.pending = [];
    this.error = undefined;
  }
}
