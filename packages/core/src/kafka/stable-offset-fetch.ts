// OffsetFetch v7 with require_stable (KIP-447): the group coordinator answers
// UNSTABLE_OFFSET_COMMIT for a partition whose offsets an open transaction is committing, instead
// of the offset from before it. A task's new owner must read the offsets a zombie's transaction
// leaves, not the ones under it: with one transaction per thread (exactly_once_v2) no transactional
// id fences the zombie first. kafkajs 2.2.4 speaks OffsetFetch v1-v4, and its admin's
// fetchOffsets asks for every partition of the given topics (whose transactions belong to other
// instances). So v7 is added, and a fetch run inside `fetchStableOffsets`' scope asks for stable
// offsets of just the scope's partitions; elsewhere (kafkajs' consumer) v7 asks what v4 did.
// Installed in kafkajs' table of requests, which its broker reads at every call (any load order).
import { AsyncLocalStorage } from 'node:async_hooks';
import { installRequestVersions, requireFromCore as require } from './kafkajs-modules.ts';
import {
  compactInt32Array,
  Decoder,
  Encoder,
  NO_TAGGED_FIELDS,
  type RequestProtocol,
  readTopicPartitions,
} from './kafkajs-protocol.ts';

interface OffsetFetchArgs {
  groupId: string;
  topics: Array<{ topic: string; partitions: Array<{ partition: number }> }> | null;
}

interface OffsetFetchResult {
  throttleTime: number;
  clientSideThrottleTime: number;
  responses: Array<{
    topic: string;
    partitions: Array<{ partition: number; offset: string; metadata: string | null; errorCode: number }>;
  }>;
  errorCode: number;
}

/**
 * The partitions (topic -> partitions) whose stable offsets the current fetch asks for. On Node 20
 * an AsyncLocalStorage in use turns on promise hooks for the whole process: every promise of the
 * app then pays for them (7% of the CPU of the async benchmark's 20 ms timer row, bench/async-http,
 * 2026-12-06). So the scope is disabled again whenever no fetch runs (`running`).
 */
const scope = new AsyncLocalStorage<Map<string, Set<number>>>();
let running = 0;

/** The partitions of the stable fetch running in this async context, if any. */
export function stableOffsetScope(): Map<string, Set<number>> | undefined {
  return scope.getStore();
}

function decode(data: Buffer): Promise<OffsetFetchResult> {
  const d = new Decoder(data);
  d.readTaggedFields();
  const throttleTime = d.readInt32();
  const responses = readTopicPartitions(d, (p) => {
    const partition = p.readInt32();
    const offset = p.readInt64().toString();
    p.readInt32(); // committed leader epoch
    const metadata = p.readUVarIntString();
    return { partition, offset, metadata, errorCode: p.readInt16() };
  });
  const errorCode = d.readInt16();
  d.readTaggedFields();
  return Promise.resolve({ throttleTime: 0, clientSideThrottleTime: throttleTime, responses, errorCode });
}

function requestV7(args: OffsetFetchArgs): RequestProtocol<OffsetFetchResult> {
  const wanted = stableOffsetScope();
  let topics = args.topics;
  if (wanted && topics) {
    topics = topics
      .map(({ topic, partitions }) => ({
        topic,
        partitions: partitions.filter((p) => wanted.get(topic)?.has(p.partition) === true),
      }))
      .filter((t) => t.partitions.length > 0);
  }
  // v2's parse: a group or partition error as kafkajs' error (UNSTABLE_OFFSET_COMMIT is retriable).
  const { parse } = require('kafkajs/src/protocol/requests/offsetFetch/v2/response.js') as {
    parse(data: OffsetFetchResult): Promise<OffsetFetchResult>;
  };
  return {
    request: {
      apiKey: 9,
      apiVersion: 7,
      apiName: 'OffsetFetch',
      encode: async () => {
        const e = new Encoder().writeUVarInt(NO_TAGGED_FIELDS).writeUVarIntString(args.groupId);
        // As kafkajs' older versions: no topics means all of the group's (a null array).
        if (topics === null || (topics.length === 0 && wanted === undefined)) e.writeUVarInt(0);
        else
          e.writeUVarIntArray(
            topics.map(({ topic, partitions }) =>
              compactInt32Array(
                new Encoder().writeUVarIntString(topic),
                partitions.map((p) => p.partition),
              ).writeUVarInt(NO_TAGGED_FIELDS),
            ),
          );
        return e.writeBoolean(wanted !== undefined).writeUVarInt(NO_TAGGED_FIELDS);
      },
    },
    response: { decode, parse },
  };
}

const installed = installRequestVersions('OffsetFetch', { 7: requestV7 as (args: never) => unknown });

/** Whether offset fetches can ask for stable offsets (false when core cannot reach kafkajs' files: bundled). */
export const stableOffsetFetchInstalled = () => installed;

/**
 * Runs `fetch` (a kafkajs offset fetch, e.g. admin.fetchOffsets) asking for the stable offsets of
 * `partitions` only: it fails with UNSTABLE_OFFSET_COMMIT while a transaction commits offsets of
 * one of them. Other partitions of the same topics are left out of the answer.
 */
export async function fetchStableOffsets<T>(
  partitions: Array<{ topic: string; partition: number }>,
  fetch: () => Promise<T>,
): Promise<T> {
  const wanted = new Map<string, Set<number>>();
  for (const { topic, partition } of partitions) {
    const set = wanted.get(topic) ?? new Set<number>();
    set.add(partition);
    wanted.set(topic, set);
  }
  running += 1;
  try {
    return await scope.run(wanted, fetch);
  } finally {
    running -= 1;
    if (running === 0) scope.disable();
  }
}
