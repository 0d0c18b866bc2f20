// The consumer protocol's bytes inside the classic group protocol (protocol type "consumer"): what
// a member subscribes with (ConsumerProtocolSubscription) and what the leader hands each member
// (ConsumerProtocolAssignment). Java's tools decode these: `kafka-consumer-groups.sh --describe`
// shows a group's members with their partitions only when the assignment is in this format. Both
// are non-flexible structures with a leading int16 version; a reader of a newer version reads the
// fields it knows and ignores the rest (Kafka's rule for these two). Kafka Streams puts its own
// SubscriptionInfo and AssignmentInfo into userData, which stays opaque here.
import { type DecoderWithArrays as Dec, decoder, type EncoderWithArrays as Enc, encoder } from './wire.ts';

export interface TopicPartitions {
  topic: string;
  partitions: number[];
}

export interface Subscription {
  topics: string[];
  userData: Buffer | null;
  /** v1+: the partitions the member owns now (KIP-429). */
  ownedPartitions: TopicPartitions[];
  /** v2+: the generation those partitions were assigned in (-1: unknown). */
  generationId: number;
  /** v3+: the member's rack (KIP-881). */
  rackId: string | null;
}

export interface Assignment {
  partitions: TopicPartitions[];
  userData: Buffer | null;
}

/** The version kstreams writes: the newest Kafka 4.x reads. */
export const SUBSCRIPTION_VERSION = 3;
export const ASSIGNMENT_VERSION = 3;

function writeTopicPartitions(e: Enc, list: TopicPartitions[]): void {
  e.writeArray(list.map((tp) => encoder().writeString(tp.topic).writeArray(tp.partitions, 'int32')));
}

function readTopicPartitionList(d: Dec): TopicPartitions[] {
  return (
    d.readArray((t) => ({
      topic: t.readString() ?? '',
      partitions: t.readArray((p) => p.readInt32()) ?? [],
    })) ?? []
  );
}

const remaining = (d: Dec) => d.buffer.length - d.offset;

export function encodeSubscription(s: Subscription, version = SUBSCRIPTION_VERSION): Buffer {
  const e = encoder().writeInt16(version);
  e.writeArray(s.topics, 'string');
  e.writeBytes(s.userData);
  if (version >= 1) writeTopicPartitions(e, s.ownedPartitions);
  if (version >= 2) e.writeInt32(s.generationId);
  if (version >= 3) e.writeString(s.rackId);
  return e.buffer;
}

export function decodeSubscription(data: Buffer): Subscription & { version: number } {
  const d = decoder(data);
  const version = d.readInt16();
  if (version < 0)
    throw new Error(`a consumer subscription of version ${version}: not a consumer protocol member`);
  const topics = d.readArray((t) => t.readString() ?? '') ?? [];
  const userData = d.readBytes();
  // Fields a version adds are "ignorable": a reader takes what is there.
  const ownedPartitions = version >= 1 && remaining(d) >= 4 ? readTopicPartitionList(d) : [];
  const generationId = version >= 2 && remaining(d) >= 4 ? d.readInt32() : -1;
  const rackId = version >= 3 && remaining(d) >= 2 ? d.readString() : null;
  return { version, topics, userData, ownedPartitions, generationId, rackId };
}

export function encodeAssignment(a: Assignment, version = ASSIGNMENT_VERSION): Buffer {
  const e = encoder().writeInt16(version);
  writeTopicPartitions(e, a.partitions);
  e.writeBytes(a.userData);
  return e.buffer;
}

/** An empty buffer is what the coordinator hands a member the leader gave nothing (Java reads it so too). */
export function decodeAssignment(data: Buffer): Assignment & { version: number } {
  if (data.length === 0) return { version: 0, partitions: [], userData: null };
  const d = decoder(data);
  const version = d.readInt16();
  const partitions = readTopicPartitionList(d);
  const userData = remaining(d) >= 4 ? d.readBytes() : null;
  return { version, partitions, userData };
}
