// The app's one group consumer. kafkajs has no revoke callback and no assign(): assignments arrive
// as GROUP_JOIN events, rebalances as REBALANCING events, and positions move only through
// resolveOffset / seek, which the runtime drives itself.
import type { Consumer, EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs';
import type { ResolvedConfig } from '../config/streams-config.ts';
import type { InputReader } from '../processor/internals/record-queue.ts';
import type { InputRecord } from '../processor/internals/records.ts';
import type { TopicPartitionOffset } from './admin.ts';
import { type AssignorOptions, kstreamsAssignor } from './assignor.ts';
import { isRetriableError } from './error-kinds.ts';
import { fetchedOffset, fetchedTimestamp } from './fetch-decoding.ts';
import { type FetchedPartition, fetchedEnd, fetchLagInstalled, withFetchListener } from './fetch-lag.ts';
import { groupGeneration } from './group-generation.ts';

export interface InputBatch {
  topic: string;
  partition: number;
  messages: KafkaMessage[];
  /**
   * The batch's last offset, which may lie past its last message: transaction markers and
   * aborted records are fetched but not handed out.
   */
  lastOffset: number;
  /** A seek is pending for this partition: the rest of the batch is stale. */
  isStale(): boolean;
  /** The partition's log end when the batch was fetched. */
  highWatermark: number;
  /**
   * The partition's end for the fetch lag (high watermark, or the last stable offset under
   * read_committed) when no fetch report told it already (see ConsumerHandlers.onFetchedEnd).
   */
  endOffset: number | undefined;
  /** Moves the fetch position past `offset`. */
  resolveOffset(offset: number): void;
  heartbeat(): Promise<void>;
}

export interface ConsumerHandlers {
  onBatch(batch: InputBatch): Promise<void>;
  /** `groupGeneration`: the generation of this assignment (undefined if kafkajs' JoinGroup went unseen). */
  onAssignment(memberId: string, assignment: Record<string, number[]>, groupGeneration?: number): void;
  onRebalancing(): void;
  /** A fetched range held only transaction markers or aborted records (kafkajs skips it itself). */
  onControlRecords(topic: string, partition: number, first: number, last: number): void;
  /** A fetch told the partition's log end offset (for the lag metric). */
  onFetched?(topic: string, partition: number, highWatermark: number): void;
  /**
   * A fetch response told a partition's end (the last stable offset under read_committed, else
   * the high watermark), with or without records; `emptyAt`: the offset an empty response was
   * asked from. Called before the response's batches are handed out.
   */
  onFetchedEnd?(topic: string, partition: number, endOffset: number, emptyAt: number | undefined): void;
  onCrash(error: Error, willRestart: boolean): void;
}

export function toInputRecord(topic: string, partition: number, m: KafkaMessage): InputRecord {
  const record: InputRecord = {
    topic,
    partition,
    offset: fetchedOffset(m),
    key: m.key,
    value: m.value,
    timestamp: fetchedTimestamp(m),
  };
  // A for-in rather than Object.keys: no array per record for the usual empty headers.
  for (const _ in m.headers) {
    record.headers = m.headers as InputRecord['headers'];
    break;
  }
  return record;
}

/** A task's queues hold the fetched messages and make InputRecords of them when processed. */
export const fetchedMessageReader: InputReader = {
  timestamp: (fetched) => fetchedTimestamp(fetched as KafkaMessage),
  record: (topic, partition, fetched) => toInputRecord(topic, partition, fetched as KafkaMessage),
};

/** How long the consumer restarts itself after crashes kafkajs would not restart from. */
const SELF_RESTART_WINDOW_MS = 5 * 60_000;
const SELF_RESTART_DELAY_MS = 1_000;

export class MainConsumer {
  private readonly consumer: Consumer;
  /** Between a crash and kafkajs' restart of the consumer there is no group to pause or seek in. */
  private restarting = false;
  private stopping = false;
  /** Connects and runs the consumer again (set by `start`). */
  private rerun?: () => Promise<void>;
  private handlers?: ConsumerHandlers;
  private restartTimer?: NodeJS.Timeout;
  /** When the crashes that the consumer restarts itself from began; reset by a join. */
  private crashingSince?: number;

  private readonly readCommitted: boolean;

  constructor(kafka: Kafka, config: ResolvedConfig, assignor: AssignorOptions) {
    this.readCommitted = config.consumer.isolationLevel !== 'read_uncommitted';
    this.consumer = kafka.consumer({
      groupId: config.applicationId,
      partitionAssigners: [withFetchListener(kstreamsAssignor(assignor), (f) => this.fetched(f))],
      sessionTimeout: config.consumer.sessionTimeoutMs,
      heartbeatInterval: config.consumer.heartbeatIntervalMs,
      rebalanceTimeout: config.consumer.rebalanceTimeoutMs,
      maxWaitTimeInMs: config.consumer.maxWaitTimeMs,
      // Moderate fetches keep one batch's processing (and its transaction) short, and bound what
      // waits decoded in memory: kafkajs decodes a whole response into objects at once (about
      // ten times its bytes), so a response is capped at 1 MiB whatever the partition count (the
      // word-count benchmark's peak RSS: 30-50 MB less, at the same speed).
      maxBytesPerPartition: 256 * 1024,
      maxBytes: 1024 * 1024,
      readUncommitted: config.consumer.isolationLevel === 'read_uncommitted',
      allowAutoTopicCreation: false,
      retry: { retries: 8, initialRetryTime: 300, maxRetryTime: 5_000 },
    });
  }

  async start(topics: string[], handlers: ConsumerHandlers): Promise<void> {
    const { GROUP_JOIN, REBALANCING, CRASH } = this.consumer.events;
    this.consumer.on(GROUP_JOIN, (e) => {
      this.restarting = false;
      this.crashingSince = undefined;
      // Read now: the member's next join (a newer generation) may come before the handler runs.
      const { memberId } = e.payload;
      handlers.onAssignment(memberId, e.payload.memberAssignment, groupGeneration(memberId));
    });
    this.consumer.on(REBALANCING, () => handlers.onRebalancing());
    // kafkajs does not call eachBatch for such a range; its instrumentation event is the only news
    // of it.
    this.consumer.on(this.consumer.events.START_BATCH_PROCESS, ({ payload }) => {
      handlers.onFetched?.(payload.topic, payload.partition, Number(payload.highWatermark));
      if (payload.batchSize === 0 && payload.firstOffset !== null)
        handlers.onControlRecords(
          payload.topic,
          payload.partition,
          Number(payload.firstOffset),
          Number(payload.lastOffset),
        );
    });
    this.handlers = handlers;
    this.consumer.on(CRASH, (e) => this.crashed(e.payload.error, e.payload.restart));
    await this.consumer.connect();
    await this.consumer.subscribe({ topics, fromBeginning: true });
    const run = () =>
      this.consumer.run({
        autoCommit: false,
        eachBatchAutoResolve: false,
        eachBatch: async (payload: EachBatchPayload) => {
          const { batch } = payload;
          await handlers.onBatch({
            topic: batch.topic,
            partition: batch.partition,
            messages: batch.messages,
            lastOffset: Number(batch.lastOffset()),
            highWatermark: Number(batch.highWatermark),
            // Told already by the fetch report, in fetch order; a batch alone knows only the
            // high watermark.
            endOffset: fetchLagInstalled() ? undefined : Number(batch.highWatermark),
            isStale: payload.isStale,
            resolveOffset: (offset) => payload.resolveOffset(String(offset)),
            heartbeat: payload.heartbeat,
          });
        },
      });
    this.rerun = async () => {
      await this.consumer.connect();
      await run();
    };
    await run();
  }

  private fetched(f: FetchedPartition): void {
    const end = fetchedEnd(f, this.readCommitted);
    if (end !== undefined)
      this.handlers?.onFetchedEnd?.(f.topic, f.partition, end, f.records === 0 ? f.fetchOffset : undefined);
  }

  /** A crash of the consumer, or of our own restart of it (`kafkajsRestarts` false then). */
  private crashed(error: Error, kafkajsRestarts: boolean): void {
    const restart = kafkajsRestarts || this.restartItself(error);
    this.restarting = restart;
    this.handlers?.onCrash(error, restart);
  }

  /**
   * kafkajs restarts a crashed consumer only when it marks the error retriable; a group coordinator
   * it could not find while a broker restarted comes wrapped as non-retriable (seen under load in
   * the broker-restart test), and the stream thread would stop for good. For errors the runtime
   * counts as transient (kafka/error-kinds.ts) the consumer connects and runs again itself, for up
   * to SELF_RESTART_WINDOW_MS without a successful join. True when it will.
   */
  private restartItself(error: unknown): boolean {
    const rerun = this.rerun;
    if (this.stopping || rerun === undefined || !isRetriableError(error)) return false;
    const now = Date.now();
    this.crashingSince ??= now;
    if (now - this.crashingSince > SELF_RESTART_WINDOW_MS) return false;
    // The broker may still be away: a failed restart is a crash like kafkajs' own.
    this.restartTimer = setTimeout(
      () => rerun().catch((failure: Error) => this.crashed(failure, false)),
      SELF_RESTART_DELAY_MS,
    );
    return true;
  }

  pause(partitions: Array<{ topic: string; partition: number }>): void {
    if (partitions.length > 0) this.whileRunning(() => this.consumer.pause(group(partitions)));
  }

  resume(partitions: Array<{ topic: string; partition: number }>): void {
    if (partitions.length > 0) this.whileRunning(() => this.consumer.resume(group(partitions)));
  }

  paused(): Array<{ topic: string; partitions: number[] }> {
    return this.restarting ? [] : this.consumer.paused();
  }

  seek(tp: TopicPartitionOffset): void {
    this.whileRunning(() =>
      this.consumer.seek({ topic: tp.topic, partition: tp.partition, offset: String(tp.offset) }),
    );
  }

  /**
   * Skips the call while kafkajs restarts the consumer: the restart joins with a new member id, so
   * the stream thread recreates every task, which pauses and seeks its partitions again.
   */
  private whileRunning(fn: () => void): void {
    try {
      fn();
    } catch (error) {
      if (!this.restarting) throw error;
    }
  }

  async commitOffsets(offsets: TopicPartitionOffset[]): Promise<void> {
    if (offsets.length === 0) return;
    await this.consumer.commitOffsets(
      offsets.map((o) => ({ topic: o.topic, partition: o.partition, offset: String(o.offset) })),
    );
  }

  /** kafkajs' consumer always leaves the group when it disconnects (no static membership). */
  async stop(_options: { leaveGroup?: boolean } = {}): Promise<void> {
    this.stopping = true;
    clearTimeout(this.restartTimer);
    await this.consumer.disconnect();
  }
}

function group(partitions: Array<{ topic: string; partition: number }>) {
  const byTopic = new Map<string, number[]>();
  for (const p of partitions) byTopic.set(p.topic, [...(byTopic.get(p.topic) ?? []), p.partition]);
  return [...byTopic].map(([topic, ps]) => ({ topic, partitions: ps }));
}
