// Reads an app's output topic and keeps the latest count of every word, up to given end offsets
// per partition (a snapshot of the topic at one moment): "were all words complete in the output
// as it stood at time T?" is then exact, whatever the app wrote after T. This is how the benchmark
// knows an at_least_once app is done even when a rebalance made it write duplicates (then more
// records than words exist before the last word is counted), and how every app is verified.
import type { Consumer, Kafka, KafkaMessage } from 'kafkajs';

export interface TrackerOptions {
  kafka: Kafka;
  topic: string;
  groupId: string;
  expected: Map<string, number>;
  /**
   * exactly_once output, read read_committed: a commit marker (never delivered as a record) may
   * end each partition, so a partition is read through when one offset short of its end.
   */
  transactional: boolean;
  /** Called with every record applied (the latency probe reads its timestamp). */
  onRecord?: (m: KafkaMessage) => void;
}

export interface TrackerState {
  records: number;
  /** Expected words whose latest count is below the true count (missing or behind). */
  behind: number;
  /** Expected words whose latest count is above the true count (at_least_once duplicates). */
  ahead: number;
  /** Words in the output that are not in the input. */
  unknown: number;
}

/** Quiet time after which a read stops short of its targets (an aborted transaction at a tail). */
const QUIET_MS = 5_000;

export class OutputTracker {
  private readonly consumer: Consumer;
  private readonly latest = new Map<string, number>();
  private readonly next = new Map<number, number>();
  private readonly held = new Map<number, KafkaMessage[]>();
  private targets = new Map<number, number>();
  private records = 0;
  private behind: number;
  private ahead = 0;
  private unknown = 0;
  private lastRecordAt = Date.now();
  private started = false;

  constructor(private readonly opts: TrackerOptions) {
    this.behind = opts.expected.size;
    this.consumer = opts.kafka.consumer({
      groupId: opts.groupId,
      readUncommitted: !opts.transactional,
      maxBytes: 50 * 1024 * 1024,
      maxBytesPerPartition: 10 * 1024 * 1024,
      maxWaitTimeInMs: 200,
    });
  }

  private apply(partition: number, m: KafkaMessage): void {
    this.next.set(partition, Number(m.offset) + 1);
    this.records++;
    this.opts.onRecord?.(m);
    if (!m.key || m.value?.length !== 8) {
      this.unknown++;
      return;
    }
    const word = m.key.toString();
    const count = Number(m.value.readBigInt64BE(0));
    const expected = this.opts.expected.get(word);
    if (expected === undefined) {
      if (!this.latest.has(word)) this.unknown++;
      this.latest.set(word, count);
      return;
    }
    const before = this.latest.get(word);
    this.latest.set(word, count);
    if (before === undefined || before < expected) this.behind--;
    else if (before > expected) this.ahead--;
    if (count < expected) this.behind++;
    else if (count > expected) this.ahead++;
  }

  private onMessages(partition: number, messages: KafkaMessage[]): void {
    const target = this.targets.get(partition) ?? 0;
    let held = this.held.get(partition);
    for (const m of messages) {
      // A re-delivery (the tracker's consumer rejoined and started over) changes nothing.
      if (Number(m.offset) < (this.next.get(partition) ?? 0)) continue;
      if (held || Number(m.offset) >= target) {
        if (!held) {
          held = [];
          this.held.set(partition, held);
        }
        held.push(m);
      } else this.apply(partition, m);
    }
    this.lastRecordAt = Date.now();
  }

  private caughtUp(): boolean {
    const slack = this.opts.transactional ? 1 : 0;
    for (const [p, end] of this.targets) {
      if (end > 0 && (this.next.get(p) ?? 0) < end - slack) return false;
    }
    return true;
  }

  /**
   * Applies the output up to `ends` (exclusive, per partition) and returns the state there.
   * Successive calls must not move a partition's end backwards.
   */
  async readUntil(ends: Map<number, number>, timeoutMs: number): Promise<TrackerState> {
    this.targets = new Map(ends);
    for (const [p, messages] of this.held) {
      this.held.delete(p);
      this.onMessages(p, messages);
    }
    await this.start();
    const start = Date.now();
    this.lastRecordAt = start;
    while (!this.caughtUp()) {
      if (Date.now() - this.lastRecordAt > QUIET_MS || Date.now() - start > timeoutMs) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    return this.state();
  }

  /** Applies every record as it comes, with no end: state() is then the output read so far. */
  async follow(numPartitions: number): Promise<void> {
    this.targets = new Map(Array.from({ length: numPartitions }, (_, p) => [p, Number.POSITIVE_INFINITY]));
    await this.start();
  }

  private async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    await this.consumer.connect();
    await this.consumer.subscribe({ topic: this.opts.topic, fromBeginning: true });
    await this.consumer.run({
      autoCommit: false,
      eachBatch: async ({ batch }) => this.onMessages(batch.partition, batch.messages),
    });
  }

  state(): TrackerState {
    return { records: this.records, behind: this.behind, ahead: this.ahead, unknown: this.unknown };
  }

  latestCount(word: string): number | undefined {
    return this.latest.get(word);
  }

  async close(): Promise<void> {
    if (this.started) await this.consumer.disconnect();
  }
}
