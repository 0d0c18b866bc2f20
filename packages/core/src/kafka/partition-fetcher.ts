// A fetch loop of kstreams' own over partitions assigned by hand (the Java consumer's assign()),
// which kafkajs lacks: the restore reader, the global thread and kstreams' own group member fetch
// through it, with no consumer group of kafkajs'. kafkajs gives the cluster (bootstrap, metadata,
// connections with TLS/SASL) and the Fetch request's framing and decoding (with core's
// fetch-decoding patch); this module decides what to fetch when, and what an answer means
// (fetch-plan.ts holds those decisions, unit-tested without a broker).
//
// The model is kafkajs' own consumer's: per leader broker one fetch at a time; its batches are
// handed to onBatch one after another (never two handlers at once, across brokers too), and that
// broker is fetched again when they are done. So at most one response per broker is in memory,
// capped by maxBytes.

// First: kafkajs must find core's replacements when it loads (kafkajs-patches.ts).
import './kafkajs-patches.ts';
import type { Kafka, KafkaMessage } from 'kafkajs';
import { noteBrokerAnswer, noteBrokerFailure } from './broker-connectivity.ts';
import { hasErrorType, isRetriableError } from './error-kinds.ts';
import {
  backoffMs,
  fetchedEndOffset,
  fetchedRange,
  newPartitionState,
  nextRetryAt,
  type PartitionState,
  partitionErrorAction,
  planFetches,
  rotate,
} from './fetch-plan.ts';
import { type FetchResponse, sendFetch } from './fetch-request.ts';
import { createCluster, type KafkajsCluster } from './kafkajs-cluster.ts';
import { createErrorFromCode } from './kafkajs-protocol.ts';
import { hideAbortedRecords } from './read-committed.ts';

export interface FetcherPartition {
  topic: string;
  partition: number;
}

export interface FetcherBatch {
  topic: string;
  partition: number;
  /** In offset order, at or past the fetch position; no control records, nor aborted ones under read_committed. */
  messages: KafkaMessage[];
  /** The batch's last offset, which may lie past its last message (markers, aborted records). */
  lastOffset: number;
  highWatermark: number;
  /** The last stable offset under read_committed, else the high watermark. */
  endOffset: number;
  /** A seek, unassign or pause came for this partition since the batch was fetched. */
  isStale(): boolean;
  /** Moves the position to `offset + 1` (unless a seek or unassign came since the fetch). */
  resolveOffset(offset: number): void;
}

export interface PartitionFetcherOptions {
  kafka: Kafka;
  readCommitted: boolean;
  maxWaitMs: number;
  minBytes?: number;
  maxBytes: number;
  maxBytesPerPartition: number;
  /** Awaited before the partition is fetched again; never two at once. */
  onBatch(batch: FetcherBatch): Promise<void>;
  /**
   * Every partition of every answer, before its batch: its end (see fetchedEndOffset) and, when
   * the answer handed out no record, the offset it was asked from (kafka/fetch-lag.ts).
   */
  onFetchedEnd?(topic: string, partition: number, endOffset: number, emptyAt: number | undefined): void;
  /** A fetched range held no record to hand out (transaction markers, aborted records); the position moved past it. */
  onControlRecords?(topic: string, partition: number, first: number, last: number): void;
  /** The position left the log: the new position (the reset policy), or throw to fail. */
  onOffsetOutOfRange(tp: FetcherPartition, position: number): Promise<number>;
  /** A failure the fetcher does not retry, or gave up on; the fetcher fetches no more. */
  onError(error: Error): void;
  /** Connection failures of one broker retried this long, at most, before onError (default 5 min). */
  retryTimeoutMs?: number;
  /** The kafkajs cluster to fetch through; by default a new one of `kafka`'s (tests pass a fake). */
  cluster?: KafkajsCluster;
}

interface Requested {
  state: PartitionState;
  offset: number;
  epoch: number;
}

interface Ready {
  requested: Requested;
  batch: Omit<FetcherBatch, 'isStale' | 'resolveOffset'>;
}

const keyOf = (topic: string, partition: number) => `${topic}\u0000${partition}`;

export class PartitionFetcher {
  private readonly cluster: KafkajsCluster;
  private readonly states = new Map<string, PartitionState>();
  /** Per broker node id: its fetch cycle (the fetch and the handling of its batches). */
  private readonly cycles = new Map<number, Promise<void>>();
  private readonly handling = new Map<PartitionState, Promise<void>>();
  /** Per broker: since when its fetches have failed without a success. */
  private readonly failingSince = new Map<number, number>();
  /** Topics in the cluster's metadata (a topic not created yet is left out until it exists). */
  private readonly knownTopics = new Set<string>();
  private handlerChain: Promise<void> = Promise.resolve();
  private metadataRefresh?: Promise<void>;
  private metadataStale = false;
  private metadataAttempts = 0;
  private metadataRetryAt = 0;
  private wakeTimer?: NodeJS.Timeout;
  /** Leaders (and topics' metadata) asked for ahead of their first fetch. */
  private readonly warmed = new Set<number>();
  private readonly warmedTopics = new Set<string>();
  private turn = 0;
  private running = false;
  private stopping = false;
  private failed = false;

  constructor(private readonly options: PartitionFetcherOptions) {
    if (options.maxBytesPerPartition > options.maxBytes)
      throw new Error(
        `fetcher: maxBytesPerPartition (${options.maxBytesPerPartition}) must not exceed maxBytes (${options.maxBytes})`,
      );
    this.cluster = options.cluster ?? createCluster(options.kafka);
  }

  /** Adds partitions; one without an offset is not fetched until seek(). */
  assign(partitions: Array<FetcherPartition & { offset?: number }>): void {
    for (const { topic, partition, offset } of partitions) {
      const key = keyOf(topic, partition);
      const existing = this.states.get(key);
      if (existing === undefined) this.states.set(key, newPartitionState(topic, partition, offset));
      else if (offset !== undefined) this.seek({ topic, partition, offset });
    }
    if (this.running) this.warmConnections();
    this.pump();
  }

  /**
   * Removes partitions; resolves when no batch of theirs is inside onBatch (so an onBatch must not
   * await the unassign of its own partition: it would wait for itself).
   */
  async unassign(partitions: FetcherPartition[]): Promise<void> {
    const waits: Promise<void>[] = [];
    for (const { topic, partition } of partitions) {
      const key = keyOf(topic, partition);
      const state = this.states.get(key);
      if (state === undefined) continue;
      this.states.delete(key);
      state.epoch++;
      state.seekEpoch++;
      const inside = this.handling.get(state);
      if (inside !== undefined) waits.push(inside);
    }
    await Promise.all(waits);
  }

  assignment(): FetcherPartition[] {
    return [...this.states.values()].map(({ topic, partition }) => ({ topic, partition }));
  }

  seek({ topic, partition, offset }: FetcherPartition & { offset: number }): void {
    const state = this.states.get(keyOf(topic, partition));
    if (state === undefined)
      throw new Error(`cannot seek ${topic}-${partition}: the partition is not assigned to this fetcher`);
    if (!Number.isSafeInteger(offset) || offset < 0)
      throw new Error(`cannot seek ${topic}-${partition} to ${offset}: an offset is an integer >= 0`);
    state.position = offset;
    state.epoch++;
    state.seekEpoch++;
    state.retryAt = 0;
    this.pump();
  }

  /** Partitions not assigned are left alone (an unassign may have come first). */
  pause(tps: FetcherPartition[]): void {
    for (const { topic, partition } of tps) {
      const state = this.states.get(keyOf(topic, partition));
      if (state === undefined || state.paused) continue;
      state.paused = true;
      state.epoch++;
    }
  }

  resume(tps: FetcherPartition[]): void {
    for (const { topic, partition } of tps) {
      const state = this.states.get(keyOf(topic, partition));
      if (state !== undefined) state.paused = false;
    }
    this.pump();
  }

  paused(): Array<{ topic: string; partitions: number[] }> {
    const byTopic = new Map<string, number[]>();
    for (const s of this.states.values())
      if (s.paused) byTopic.set(s.topic, [...(byTopic.get(s.topic) ?? []), s.partition]);
    return [...byTopic].map(([topic, partitions]) => ({ topic, partitions }));
  }

  position({ topic, partition }: FetcherPartition): number | undefined {
    return this.states.get(keyOf(topic, partition))?.position;
  }

  async start(): Promise<void> {
    await this.cluster.connect();
    this.running = true;
    this.pump();
  }

  /** Stops fetching; resolves when no fetch is in flight and no handler runs. */
  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.wakeTimer);
    await Promise.allSettled([...this.cycles.values(), this.metadataRefresh, this.handlerChain]);
    await this.cluster.disconnect().catch(() => {});
  }

  /** Starts the fetches that can go now, and a timer for those held back by a back-off. */
  private pump(): void {
    if (!this.running || this.stopping || this.failed) return;
    const now = Date.now();
    const plan = planFetches(this.states.values(), (s) => this.leaderOf(s), new Set(this.cycles.keys()), now);
    if (plan.leaderless.length > 0 || this.metadataStale) this.refreshMetadata(now);
    else this.metadataAttempts = 0;
    for (const [nodeId, parts] of plan.byBroker) {
      for (const s of parts) s.busy = true;
      const cycle = this.cycle(nodeId, parts)
        .catch((error: Error) => this.fail(error))
        .finally(() => {
          this.cycles.delete(nodeId);
          this.pump();
        });
      this.cycles.set(nodeId, cycle);
    }
    let wake = nextRetryAt(this.states.values(), now);
    if (plan.leaderless.length > 0 && this.metadataRefresh === undefined)
      wake = Math.min(wake ?? Number.POSITIVE_INFINITY, this.metadataRetryAt);
    clearTimeout(this.wakeTimer);
    if (wake !== undefined) this.wakeTimer = setTimeout(() => this.pump(), Math.max(0, wake - now));
  }

  /**
   * Connects to the leaders of partitions not fetched yet (paused while their tasks restore), so
   * that the first fetch after resume() does not wait for a connection's setup.
   */
  private warmConnections(): void {
    if (this.stopping) return;
    const unknown = [...this.states.values()].filter((s) => !this.knownTopics.has(s.topic));
    for (const s of this.states.values()) {
      const leader = this.leaderOf(s);
      if (leader === undefined || this.warmed.has(leader)) continue;
      this.warmed.add(leader);
      this.cluster.findBroker({ nodeId: leader }).catch(() => this.warmed.delete(leader));
    }
    // Their leaders are learnt now (once per topic: the fetches' own refreshes do the rest).
    const fresh = unknown.filter((s) => !this.warmedTopics.has(s.topic));
    for (const s of fresh) this.warmedTopics.add(s.topic);
    if (fresh.length > 0) this.refreshMetadata(Date.now());
  }

  private leaderOf(state: PartitionState): number | undefined {
    if (!this.knownTopics.has(state.topic)) return undefined;
    try {
      const leader = this.cluster
        .findTopicPartitionMetadata(state.topic)
        .find((p) => p.partitionId === state.partition)?.leader;
      return leader === null || leader === undefined || leader < 0 ? undefined : leader;
    } catch {
      return undefined;
    }
  }

  /** One metadata refresh at a time, spaced by a back-off while leaders stay unknown. */
  private refreshMetadata(now: number): void {
    if (this.metadataRefresh !== undefined || now < this.metadataRetryAt) return;
    this.metadataStale = false;
    this.metadataRetryAt = now + backoffMs(++this.metadataAttempts, 100, 2_000);
    this.metadataRefresh = (async () => {
      const unknown = [...new Set([...this.states.values()].map((s) => s.topic))].filter(
        (t) => !this.knownTopics.has(t),
      );
      try {
        if (unknown.length > 0) await this.addTopics(unknown);
        else await this.cluster.refreshMetadata();
      } catch (error) {
        if (!isRetriableError(error)) this.fail(error as Error);
        this.metadataStale = true;
      }
    })().finally(() => {
      this.metadataRefresh = undefined;
      this.warmConnections();
      this.pump();
    });
  }

  /** Adds topics to the metadata; those that do not exist yet stay unknown (tried again later). */
  private async addTopics(topics: string[]): Promise<void> {
    try {
      await this.cluster.addMultipleTargetTopics(topics);
      for (const t of topics) this.knownTopics.add(t);
      return;
    } catch (error) {
      if (!hasErrorType(error, 'UNKNOWN_TOPIC_OR_PARTITION') || topics.length === 1) {
        if (hasErrorType(error, 'UNKNOWN_TOPIC_OR_PARTITION')) return;
        throw error;
      }
    }
    for (const t of topics) await this.addTopics([t]);
  }

  /** Fetches from one broker and hands out the batches; the broker is fetched again after. */
  private async cycle(nodeId: number, parts: PartitionState[]): Promise<void> {
    const requested = parts.map((state) => ({ state, offset: state.position!, epoch: state.epoch }));
    let response: FetchResponse;
    try {
      const broker = await this.cluster.findBroker({ nodeId });
      response = await sendFetch(broker, this.options, rotate(requested, this.turn++));
      this.failingSince.delete(nodeId);
      noteBrokerAnswer(this.options.kafka);
    } catch (error) {
      noteBrokerFailure(this.options.kafka, error);
      for (const s of parts) s.busy = false;
      this.brokerFailed(nodeId, parts, error as Error);
      return;
    }
    const ready = await this.answers(
      response,
      new Map(requested.map((r) => [keyOf(r.state.topic, r.state.partition), r])),
    );
    for (const r of requested) if (!ready.some((b) => b.requested === r)) r.state.busy = false;
    for (const item of ready) await this.handOut(item);
  }

  /** A fetch that failed as a whole: the broker is away or restarting, or the request is refused. */
  private brokerFailed(nodeId: number, parts: PartitionState[], error: Error): void {
    if (!isRetriableError(error)) throw error;
    const now = Date.now();
    const since = this.failingSince.get(nodeId) ?? now;
    this.failingSince.set(nodeId, since);
    const limit = this.options.retryTimeoutMs ?? 300_000;
    if (now - since > limit)
      throw new Error(
        `fetcher: broker ${nodeId} failed every fetch for ${now - since} ms: ${error.message}`,
        {
          cause: error,
        },
      );
    for (const s of parts) {
      s.failures++;
      s.retryAt = now + backoffMs(s.failures, 200, 5_000);
    }
    // The broker may have lost its leaderships (a restart) or its address.
    this.metadataStale = true;
  }

  /** Each partition's answer: its error handled, its end reported, its batch (if any) made. */
  private async answers(response: FetchResponse, requested: Map<string, Requested>): Promise<Ready[]> {
    const ready: Ready[] = [];
    const now = Date.now();
    for (const { topicName: topic, partitions } of response.responses) {
      for (const p of partitions) {
        const r = requested.get(keyOf(topic, p.partition));
        if (r === undefined || !this.current(r)) continue;
        const { state } = r;
        const error = p.errorCode === 0 ? undefined : createErrorFromCode(p.errorCode);
        const action = partitionErrorAction(p.errorCode, error?.retriable ?? false);
        if (action === 'out-of-range') {
          const next = await this.options.onOffsetOutOfRange({ topic, partition: p.partition }, r.offset);
          if (this.current(r)) state.position = next;
          continue;
        }
        if (action === 'fatal')
          throw new Error(`fetch of ${topic}-${p.partition} failed: ${error!.message}`, { cause: error });
        if (action !== 'none') {
          state.failures++;
          state.retryAt = now + backoffMs(state.failures);
          if (action === 'refresh-metadata') this.metadataStale = true;
          continue;
        }
        state.failures = 0;
        if (this.options.readCommitted)
          hideAbortedRecords(p as unknown as Parameters<typeof hideAbortedRecords>[0]);
        const range = fetchedRange(r.offset, p.messages);
        const highWatermark = Number(p.highWatermark);
        const lso = p.lastStableOffset === undefined ? undefined : Number(p.lastStableOffset);
        const endOffset = fetchedEndOffset(this.options.readCommitted, highWatermark, lso);
        const handedOut = range?.messages.length ?? 0;
        this.options.onFetchedEnd?.(topic, p.partition, endOffset, handedOut === 0 ? r.offset : undefined);
        if (range === undefined) continue;
        if (handedOut === 0) {
          state.position = range.lastOffset + 1;
          this.options.onControlRecords?.(topic, p.partition, range.firstOffset, range.lastOffset);
          continue;
        }
        ready.push({
          requested: r,
          batch: {
            topic,
            partition: p.partition,
            messages: range.messages,
            lastOffset: range.lastOffset,
            highWatermark,
            endOffset,
          },
        });
      }
    }
    return ready;
  }

  /** Still assigned, and no seek, pause or unassign since the fetch. */
  private current(r: Requested): boolean {
    const { state } = r;
    return this.states.get(keyOf(state.topic, state.partition)) === state && state.epoch === r.epoch;
  }

  /** Hands a batch to onBatch after the handlers before it (never two at once). */
  private handOut(item: Ready): Promise<void> {
    const run = this.handlerChain.then(() => this.deliver(item));
    this.handlerChain = run.catch(() => {});
    return run;
  }

  private async deliver({ requested, batch }: Ready): Promise<void> {
    const { state } = requested;
    if (this.stopping || this.failed || !this.current(requested)) {
      state.busy = false;
      return;
    }
    const key = keyOf(state.topic, state.partition);
    const { seekEpoch } = state;
    const inside = this.options
      .onBatch({
        ...batch,
        isStale: () => this.stopping || this.states.get(key) !== state || state.epoch !== requested.epoch,
        resolveOffset: (offset) => {
          if (this.states.get(key) === state && state.seekEpoch === seekEpoch) state.position = offset + 1;
        },
      })
      .finally(() => {
        state.busy = false;
        this.handling.delete(state);
      });
    this.handling.set(state, inside);
    await inside;
  }

  private fail(error: Error): void {
    if (this.failed || this.stopping) return;
    this.failed = true;
    clearTimeout(this.wakeTimer);
    this.options.onError(error);
  }
}
