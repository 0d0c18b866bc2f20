// The Fetch request the partition fetcher sends: kafkajs' framing and decoding (with core's
// fetch-decoding patch for the record batches), with each partition's error left in the answer
// for the fetcher to handle on its own.
import type { KafkaMessage } from 'kafkajs';
import type { FetchedRecordLike } from './fetch-plan.ts';
import type { KafkajsBroker } from './kafkajs-cluster.ts';
import { kafkajsRequest } from './kafkajs-protocol.ts';

/** Fetch v4 is the first with read_committed and aborted transactions; kafkajs frames up to v11. */
const FETCH_API_KEY = 1;
const MIN_FETCH_VERSION = 4;
const MAX_FETCH_VERSION = 11;

export interface FetchedPartitionData {
  partition: number;
  errorCode: number;
  highWatermark: string;
  lastStableOffset?: string;
  abortedTransactions?: Array<{ producerId: string; firstOffset: string }>;
  messages: Array<KafkaMessage & FetchedRecordLike>;
}

export interface FetchResponse {
  responses: Array<{ topicName: string; partitions: FetchedPartitionData[] }>;
}

export interface FetchSettings {
  readCommitted: boolean;
  maxWaitMs: number;
  minBytes?: number;
  maxBytes: number;
  maxBytesPerPartition: number;
}

/** The Fetch version to send to a broker speaking it up to `brokerMax`; a clear error below v4. */
export function fetchVersion(brokerMax: number | undefined, broker: string): number {
  if (brokerMax === undefined || brokerMax < MIN_FETCH_VERSION)
    throw Object.assign(
      new Error(
        `broker ${broker} speaks Fetch up to v${brokerMax ?? '?'}; kstreams needs v${MIN_FETCH_VERSION} or later (Kafka 0.11 or later)`,
      ),
      { retriable: false },
    );
  return Math.min(MAX_FETCH_VERSION, brokerMax);
}

/** Fetches the partitions from `offset` on, in the order given (the broker fills them in it). */
export async function sendFetch(
  broker: KafkajsBroker,
  settings: FetchSettings,
  partitions: ReadonlyArray<{ state: { topic: string; partition: number }; offset: number }>,
): Promise<FetchResponse> {
  const version = fetchVersion(broker.versions[FETCH_API_KEY]?.maxVersion, broker.brokerAddress);
  const make = kafkajsRequest('Fetch').protocol({ version })!;
  const byTopic = new Map<string, Array<{ partition: number; fetchOffset: string; maxBytes: number }>>();
  for (const { state, offset } of partitions) {
    const list = byTopic.get(state.topic) ?? [];
    list.push({
      partition: state.partition,
      fetchOffset: String(offset),
      maxBytes: settings.maxBytesPerPartition,
    });
    byTopic.set(state.topic, list);
  }
  const { request, response, requestTimeout } = make({
    replicaId: -1,
    isolationLevel: settings.readCommitted ? 1 : 0,
    maxWaitTime: settings.maxWaitMs,
    minBytes: settings.minBytes ?? 1,
    maxBytes: settings.maxBytes,
    topics: [...byTopic].map(([topic, partitions]) => ({ topic, partitions })),
    rackId: '',
  } as never);
  // kafkajs' parse throws the first partition's error for the whole answer; the fetcher handles
  // each partition's error on its own.
  return (await broker.connectionPool.send({
    request,
    response: { decode: response.decode, parse: async (data: unknown) => data },
    requestTimeout,
  })) as FetchResponse;
}
