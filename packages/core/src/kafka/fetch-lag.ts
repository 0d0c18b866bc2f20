// Kafka Streams decides whether a task waits for an empty input partition by its fetch lag: the
// partition's log end minus the consumer's position, as every fetch response tells it, empty ones
// included, with the last stable offset as the end under read_committed (the high watermark would
// count an open transaction's records, which the consumer cannot read yet, as lag forever).
// kafkajs 2.2.4 shows neither: it hands out no batch for a partition whose fetch came back empty,
// and a batch carries only the high watermark.
//
// This hooks two of kafkajs' modules, both looked up at every call, so it works after kafkajs has
// loaded: the fetch response parsers (v4-v11, the versions with a last stable offset) note each
// partition's last stable offset beside its records, and ConsumerGroup.prototype.fetch reports
// every partition of each response to the consumer that fetched it. That consumer is found
// through a symbol on its partition assigner (`withFetchListener`), the one object of ours that
// kafkajs keeps on its ConsumerGroup.
import { requireFromCore as require, resolveKafkajsModule } from './kafkajs-modules.ts';

/** What one fetch response told of one partition. */
export interface FetchedPartition {
  topic: string;
  partition: number;
  /** The offset the fetch asked from (the consumer's position). */
  fetchOffset: number;
  highWatermark: number;
  /** Undefined when the response did not carry it. */
  lastStableOffset: number | undefined;
  /** Records handed out (after kafkajs' filtering of control and aborted records). */
  records: number;
}

export type FetchListener = (fetched: FetchedPartition) => void;

const LISTENER = Symbol('kstreams fetch listener');
const patched = Symbol('kstreams fetch lag');
/** A fetched partition's records array -> its last stable offset. */
const lastStable = new WeakMap<object, number>();

interface KafkajsBatch {
  topic: string;
  partition: number;
  fetchedOffset: string;
  highWatermark: string;
  rawMessages: object;
  messages: unknown[];
}

interface ConsumerGroupLike {
  assigners?: Array<{ [LISTENER]?: FetchListener }>;
}

type Fetch = (this: ConsumerGroupLike, nodeId: number) => Promise<KafkajsBatch[]>;
type Parse = (data: unknown) => Promise<unknown>;

/** Marks a kafkajs partition assigner (factory) so that its consumer's fetches reach `listener`. */
export function withFetchListener<A extends object, C>(
  createAssigner: (config: C) => A,
  listener: FetchListener,
): (config: C) => A {
  return (config) => Object.assign(createAssigner(config), { [LISTENER]: listener });
}

function report(group: ConsumerGroupLike, batches: KafkajsBatch[]): void {
  const listener = group.assigners?.find((a) => a[LISTENER] !== undefined)?.[LISTENER];
  if (listener === undefined) return;
  for (const b of batches) {
    listener({
      topic: b.topic,
      partition: b.partition,
      fetchOffset: Number(b.fetchedOffset),
      highWatermark: Number(b.highWatermark),
      lastStableOffset: lastStable.get(b.rawMessages),
      records: b.messages.length,
    });
  }
}

let installed = false;

function install(): void {
  const groupPath = resolveKafkajsModule('kafkajs/src/consumer/consumerGroup.js');
  if (groupPath === undefined) return;
  const ConsumerGroup = require(groupPath) as { prototype: { fetch: Fetch & { [patched]?: true } } };
  if (ConsumerGroup.prototype.fetch[patched]) {
    installed = true;
    return;
  }
  for (let version = 4; version <= 11; version++) {
    const path = resolveKafkajsModule(`kafkajs/src/protocol/requests/fetch/v${version}/response.js`);
    if (path === undefined) continue;
    const mod = require(path) as { parse: Parse & { [patched]?: true } };
    if (mod.parse[patched]) continue;
    const parse = mod.parse;
    mod.parse = Object.assign(
      (data: unknown) => {
        const responses = (data as { responses?: Array<{ partitions?: unknown[] }> }).responses;
        for (const topic of responses ?? [])
          for (const p of (topic.partitions ?? []) as Array<{ messages?: object; lastStableOffset?: string }>)
            if (p.messages && p.lastStableOffset !== undefined)
              lastStable.set(p.messages, Number(p.lastStableOffset));
        return parse(data);
      },
      { [patched]: true as const },
    );
  }
  const fetch = ConsumerGroup.prototype.fetch;
  ConsumerGroup.prototype.fetch = Object.assign(
    async function (this: ConsumerGroupLike, nodeId: number) {
      const batches = await fetch.call(this, nodeId);
      report(this, batches);
      return batches;
    },
    { [patched]: true as const },
  );
  installed = true;
}

install();

/** Whether kafkajs' consumers report their fetches (false when kafkajs was bundled out of reach). */
export const fetchLagInstalled = () => installed;

/**
 * The partition's end as the consumer sees it: the last stable offset under read_committed (when
 * the response told it), else the high watermark; undefined when the response told neither.
 */
export function fetchedEnd(fetched: FetchedPartition, readCommitted: boolean): number | undefined {
  const end = readCommitted ? (fetched.lastStableOffset ?? fetched.highWatermark) : fetched.highWatermark;
  return Number.isFinite(end) && end >= 0 ? end : undefined;
}
