// Kafka's sampled statistics (metrics.sample.window.ms = 30 s, metrics.num.samples = 2): a rate,
// an average and a maximum over the last samples, plus a running total. Recording is a few
// additions, so it can sit on a per-batch path.

const SAMPLE_WINDOW_MS = 30_000;
const SAMPLES = 2;

interface Sample {
  start: number;
  count: number;
  /** Events whose value was measured (all but the untimed ones). */
  timed: number;
  sum: number;
  max: number;
}

export class Sensor {
  /** Events since creation (records for a process sensor, calls for the others). */
  total = 0;
  private readonly samples: Sample[] = [];
  private readonly created: number;

  constructor(private readonly now: () => number = Date.now) {
    this.created = now();
  }

  /** `count` events that took `value` in all (ms for a latency; 0 when only the rate matters). */
  record(count = 1, value = 0): void {
    const current = this.count(count);
    current.timed += count;
    current.sum += value;
    const each = count > 0 ? value / count : value;
    if (each > current.max) current.max = each;
  }

  /** `count` events counted for the rate only (a sampled sensor's untimed calls). */
  count(count = 1): Sample {
    this.total += count;
    const now = this.now();
    let current = this.samples.at(-1);
    if (current === undefined || now - current.start >= SAMPLE_WINDOW_MS) {
      current = { start: now, count: 0, timed: 0, sum: 0, max: 0 };
      this.samples.push(current);
      if (this.samples.length > SAMPLES) this.samples.shift();
    }
    current.count += count;
    return current;
  }

  private live(now: number): Sample[] {
    return this.samples.filter((s) => now - s.start < SAMPLE_WINDOW_MS * SAMPLES);
  }

  /** Events per second over the live samples (as Kafka's Rate, the window is at least one sample). */
  rate(): number {
    const now = this.now();
    const live = this.live(now);
    if (live.length === 0) return 0;
    const count = live.reduce((n, s) => n + s.count, 0);
    const since = Math.max(live[0]!.start, this.created);
    const elapsedMs = Math.max(now - since, Math.min(SAMPLE_WINDOW_MS, now - this.created), 1_000);
    return (count * 1000) / elapsedMs;
  }

  /** Average value of one event over the live samples (NaN when none, as Kafka reports). */
  avg(): number {
    const live = this.live(this.now());
    const count = live.reduce((n, s) => n + s.timed, 0);
    return count === 0 ? Number.NaN : live.reduce((n, s) => n + s.sum, 0) / count;
  }

  /** Largest value of one event over the live samples (NaN when none). */
  max(): number {
    const live = this.live(this.now());
    return live.length === 0 ? Number.NaN : Math.max(...live.map((s) => s.max));
  }
}
