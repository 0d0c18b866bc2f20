/** Serialises the stream thread's critical sections (batch processing, commits, rebalances). */
export class Mutex {
  private tail: Promise<unknown> = Promise.resolve();

  /**
   * @param onSlow called when `fn` holds the lock longer than `slowMs`: a stuck section stops the
   * consumer's progress, so it is worth a log line saying which one.
   */
  constructor(
    private readonly onSlow?: (label: string, heldMs: number) => void,
    private readonly slowMs = 5_000,
  ) {}

  run<T>(fn: () => Promise<T> | T, label = 'section'): Promise<T> {
    const result = this.tail.then(async () => {
      const started = Date.now();
      const timer = this.onSlow
        ? setInterval(() => this.onSlow!(label, Date.now() - started), this.slowMs)
        : undefined;
      try {
        return await fn();
      } finally {
        if (timer) clearInterval(timer);
      }
    });
    this.tail = result.catch(() => {});
    return result;
  }
}
