// TxnOffsetCommit v3 (KIP-447): the offsets of a transaction carry the consumer group's generation
// and member id, and the group coordinator refuses them (ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID)
// from a producer whose consumer is no longer in the group's current generation: a zombie that
// lost its partitions in a rebalance can no longer commit them. kafkajs 2.2.4 speaks v0-v1 only;
// this adds v3 (a flexible version). kafkajs' sendOffsets passes no group metadata, so the
// producer's owner registers where it comes from under its transactional id. Without one the
// request says "no generation" (-1 and an empty member id), which coordinators accept unchecked,
// as they do v0-v2. Installed in kafkajs' table of requests (any load order).
import { installRequestVersions, requireFromCore as require } from './kafkajs-modules.ts';
import {
  Decoder,
  Encoder,
  NO_TAGGED_FIELDS,
  type RequestProtocol,
  readTopicPartitions,
} from './kafkajs-protocol.ts';

/** What Java's ConsumerGroupMetadata holds for a transactional offset commit. */
export interface ConsumerGroupMetadata {
  generationId: number;
  memberId: string;
  groupInstanceId: string | null;
}

interface TxnOffsetCommitArgs {
  transactionalId: string;
  groupId: string;
  producerId: number | string;
  producerEpoch: number;
  topics: Array<{
    topic: string;
    partitions: Array<{ partition: number; offset: string; metadata?: string | null }>;
  }>;
}

interface TxnOffsetCommitResult {
  throttleTime: number;
  topics: Array<{ topic: string; partitions: Array<{ partition: number; errorCode: number }> }>;
}

const sources = new Map<string, () => ConsumerGroupMetadata | undefined>();

/**
 * The transactional producer `transactionalId` commits offsets in the generation `source` tells at
 * the time of each commit (undefined: unchecked). Returns the function that unregisters it.
 */
export function commitOffsetsInGeneration(
  transactionalId: string,
  source: () => ConsumerGroupMetadata | undefined,
): () => void {
  sources.set(transactionalId, source);
  return () => {
    if (sources.get(transactionalId) === source) sources.delete(transactionalId);
  };
}

const UNCHECKED: ConsumerGroupMetadata = { generationId: -1, memberId: '', groupInstanceId: null };

function decode(data: Buffer): Promise<TxnOffsetCommitResult> {
  const d = new Decoder(data);
  d.readTaggedFields();
  const throttleTime = d.readInt32();
  const topics = readTopicPartitions(d, (p) => ({ partition: p.readInt32(), errorCode: p.readInt16() }));
  d.readTaggedFields();
  return Promise.resolve({ throttleTime, topics });
}

function requestV3(args: TxnOffsetCommitArgs): RequestProtocol<TxnOffsetCommitResult> {
  const group = sources.get(args.transactionalId)?.() ?? UNCHECKED;
  // v0's parse: the first partition's error, as kafkajs' error (ILLEGAL_GENERATION is not retriable).
  const { parse } = require('kafkajs/src/protocol/requests/txnOffsetCommit/v0/response.js') as {
    parse(data: TxnOffsetCommitResult): Promise<TxnOffsetCommitResult>;
  };
  return {
    request: {
      apiKey: 28,
      apiVersion: 3,
      apiName: 'TxnOffsetCommit',
      encode: async () =>
        new Encoder()
          .writeUVarInt(NO_TAGGED_FIELDS)
          .writeUVarIntString(args.transactionalId)
          .writeUVarIntString(args.groupId)
          .writeInt64(args.producerId)
          .writeInt16(args.producerEpoch)
          .writeInt32(group.generationId)
          .writeUVarIntString(group.memberId)
          .writeUVarIntString(group.groupInstanceId)
          .writeUVarIntArray(
            args.topics.map(({ topic, partitions }) =>
              new Encoder()
                .writeUVarIntString(topic)
                .writeUVarIntArray(
                  partitions.map(({ partition, offset, metadata }) =>
                    new Encoder()
                      .writeInt32(partition)
                      .writeInt64(offset)
                      .writeInt32(-1) // committed leader epoch: unknown
                      .writeUVarIntString(metadata ?? null)
                      .writeUVarInt(NO_TAGGED_FIELDS),
                  ),
                )
                .writeUVarInt(NO_TAGGED_FIELDS),
            ),
          )
          .writeUVarInt(NO_TAGGED_FIELDS),
    },
    response: { decode, parse },
  };
}

const installed = installRequestVersions('TxnOffsetCommit', { 3: requestV3 as (args: never) => unknown });

/** Whether kafkajs' transactions send TxnOffsetCommit v3 (false when core cannot reach kafkajs' files: bundled). */
export const txnOffsetCommitV3Installed = () => installed;
