// The classic group protocol's requests in their flexible versions (KIP-482), encoded with kafkajs'
// Encoder and sent on kafkajs' connections (see coordinator.ts). kafkajs 2.2.4 speaks these only
// up to JoinGroup v5, SyncGroup v3, Heartbeat v3 and LeaveGroup v3, and its broker methods drop
// group.instance.id. Every version here carries it (KIP-345); JoinGroup v8 and LeaveGroup v5 add a
// reason the coordinator logs, JoinGroup v9 tells a static leader to skip the assignment (KIP-814),
// SyncGroup v5 echoes the protocol type and name. A version's fields are those of Kafka's message
// definitions (clients/src/main/resources/common/message/*.json).
import { type KafkajsEncoder, NO_TAGGED_FIELDS, type RequestProtocol } from '../kafkajs-protocol.ts';
import { type DecoderWithArrays as Dec, decoder, encoder, readCompactBytes } from './wire.ts';

export const API = {
  // v8: the first flexible one, with group.instance.id (v7); v9 only renames for KIP-848.
  OffsetCommit: { key: 8, min: 8, max: 8 },
  JoinGroup: { key: 11, min: 6, max: 9 },
  Heartbeat: { key: 12, min: 4, max: 4 },
  LeaveGroup: { key: 13, min: 4, max: 5 },
  SyncGroup: { key: 14, min: 4, max: 5 },
} as const;
export type GroupApi = keyof typeof API;

export interface JoinGroupRequest {
  groupId: string;
  sessionTimeoutMs: number;
  rebalanceTimeoutMs: number;
  memberId: string;
  groupInstanceId: string | null;
  protocolType: string;
  protocols: Array<{ name: string; metadata: Buffer }>;
  reason?: string | null;
}

export interface JoinGroupResponse {
  throttleTimeMs: number;
  errorCode: number;
  generationId: number;
  protocolType: string | null;
  protocolName: string | null;
  leader: string;
  skipAssignment: boolean;
  memberId: string;
  members: Array<{ memberId: string; groupInstanceId: string | null; metadata: Buffer }>;
}

export interface SyncGroupRequest {
  groupId: string;
  generationId: number;
  memberId: string;
  groupInstanceId: string | null;
  protocolType: string | null;
  protocolName: string | null;
  assignments: Array<{ memberId: string; assignment: Buffer }>;
}

export interface SyncGroupResponse {
  throttleTimeMs: number;
  errorCode: number;
  protocolType: string | null;
  protocolName: string | null;
  assignment: Buffer;
}

export interface HeartbeatRequest {
  groupId: string;
  generationId: number;
  memberId: string;
  groupInstanceId: string | null;
}

export interface LeaveGroupRequest {
  groupId: string;
  members: Array<{ memberId: string; groupInstanceId: string | null; reason?: string | null }>;
}

export interface LeaveGroupResponse {
  throttleTimeMs: number;
  errorCode: number;
  members: Array<{ memberId: string; groupInstanceId: string | null; errorCode: number }>;
}

/** Offsets committed in the member's generation: the coordinator refuses a stale member's. */
export interface OffsetCommitRequest {
  groupId: string;
  generationId: number;
  memberId: string;
  groupInstanceId: string | null;
  topics: Array<{ topic: string; partitions: Array<{ partition: number; offset: number }> }>;
}

export interface OffsetCommitResponse {
  throttleTimeMs: number;
  topics: Array<{ topic: string; partitions: Array<{ partition: number; errorCode: number }> }>;
}

/** A response with an error code only (Heartbeat). */
export interface ErrorResponse {
  throttleTimeMs: number;
  errorCode: number;
}

export function encodeJoinGroup(r: JoinGroupRequest, version: number): Buffer {
  const e = encoder()
    .writeUVarInt(NO_TAGGED_FIELDS) // the request header's tagged fields (kafkajs writes header v1)
    .writeUVarIntString(r.groupId)
    .writeInt32(r.sessionTimeoutMs)
    .writeInt32(r.rebalanceTimeoutMs)
    .writeUVarIntString(r.memberId)
    .writeUVarIntString(r.groupInstanceId)
    .writeUVarIntString(r.protocolType);
  e.writeUVarInt(r.protocols.length + 1);
  for (const p of r.protocols)
    e.writeUVarIntString(p.name).writeUVarIntBytes(p.metadata).writeUVarInt(NO_TAGGED_FIELDS);
  if (version >= 8) e.writeUVarIntString(r.reason ?? null);
  return e.writeUVarInt(NO_TAGGED_FIELDS).buffer;
}

export function decodeJoinGroup(data: Buffer, version: number): JoinGroupResponse {
  const d = decoder(data);
  d.readTaggedFields(); // the response header's
  const throttleTimeMs = d.readInt32();
  const errorCode = d.readInt16();
  const generationId = d.readInt32();
  const protocolType = version >= 7 ? d.readUVarIntString() : null;
  const protocolName = d.readUVarIntString();
  const leader = d.readUVarIntString() ?? '';
  const skipAssignment = version >= 9 ? d.readBoolean() : false;
  const memberId = d.readUVarIntString() ?? '';
  const members = compactArray(d, (m) => {
    const member = {
      memberId: m.readUVarIntString() ?? '',
      groupInstanceId: m.readUVarIntString(),
      metadata: readCompactBytes(m) ?? Buffer.alloc(0),
    };
    m.readTaggedFields();
    return member;
  });
  d.readTaggedFields();
  return {
    throttleTimeMs,
    errorCode,
    generationId,
    protocolType,
    protocolName,
    leader,
    skipAssignment,
    memberId,
    members,
  };
}

export function encodeSyncGroup(r: SyncGroupRequest, version: number): Buffer {
  const e = encoder()
    .writeUVarInt(NO_TAGGED_FIELDS)
    .writeUVarIntString(r.groupId)
    .writeInt32(r.generationId)
    .writeUVarIntString(r.memberId)
    .writeUVarIntString(r.groupInstanceId);
  if (version >= 5) e.writeUVarIntString(r.protocolType).writeUVarIntString(r.protocolName);
  e.writeUVarInt(r.assignments.length + 1);
  for (const a of r.assignments)
    e.writeUVarIntString(a.memberId).writeUVarIntBytes(a.assignment).writeUVarInt(NO_TAGGED_FIELDS);
  return e.writeUVarInt(NO_TAGGED_FIELDS).buffer;
}

export function decodeSyncGroup(data: Buffer, version: number): SyncGroupResponse {
  const d = decoder(data);
  d.readTaggedFields();
  const throttleTimeMs = d.readInt32();
  const errorCode = d.readInt16();
  const protocolType = version >= 5 ? d.readUVarIntString() : null;
  const protocolName = version >= 5 ? d.readUVarIntString() : null;
  const assignment = readCompactBytes(d) ?? Buffer.alloc(0);
  d.readTaggedFields();
  return { throttleTimeMs, errorCode, protocolType, protocolName, assignment };
}

export function encodeHeartbeat(r: HeartbeatRequest, _version: number): Buffer {
  return encoder()
    .writeUVarInt(NO_TAGGED_FIELDS)
    .writeUVarIntString(r.groupId)
    .writeInt32(r.generationId)
    .writeUVarIntString(r.memberId)
    .writeUVarIntString(r.groupInstanceId)
    .writeUVarInt(NO_TAGGED_FIELDS).buffer;
}

export function decodeHeartbeat(data: Buffer, _version: number): ErrorResponse {
  const d = decoder(data);
  d.readTaggedFields();
  const throttleTimeMs = d.readInt32();
  const errorCode = d.readInt16();
  d.readTaggedFields();
  return { throttleTimeMs, errorCode };
}

export function encodeLeaveGroup(r: LeaveGroupRequest, version: number): Buffer {
  const e = encoder().writeUVarInt(NO_TAGGED_FIELDS).writeUVarIntString(r.groupId);
  e.writeUVarInt(r.members.length + 1);
  for (const m of r.members) {
    e.writeUVarIntString(m.memberId).writeUVarIntString(m.groupInstanceId);
    if (version >= 5) e.writeUVarIntString(m.reason ?? null);
    e.writeUVarInt(NO_TAGGED_FIELDS);
  }
  return e.writeUVarInt(NO_TAGGED_FIELDS).buffer;
}

export function decodeLeaveGroup(data: Buffer, _version: number): LeaveGroupResponse {
  const d = decoder(data);
  d.readTaggedFields();
  const throttleTimeMs = d.readInt32();
  const errorCode = d.readInt16();
  const members = compactArray(d, (m) => {
    const member = {
      memberId: m.readUVarIntString() ?? '',
      groupInstanceId: m.readUVarIntString(),
      errorCode: m.readInt16(),
    };
    m.readTaggedFields();
    return member;
  });
  d.readTaggedFields();
  return { throttleTimeMs, errorCode, members };
}

export function encodeOffsetCommit(r: OffsetCommitRequest, _version: number): Buffer {
  const e = encoder()
    .writeUVarInt(NO_TAGGED_FIELDS)
    .writeUVarIntString(r.groupId)
    .writeInt32(r.generationId)
    .writeUVarIntString(r.memberId)
    .writeUVarIntString(r.groupInstanceId);
  e.writeUVarInt(r.topics.length + 1);
  for (const t of r.topics) {
    e.writeUVarIntString(t.topic).writeUVarInt(t.partitions.length + 1);
    for (const p of t.partitions)
      e.writeInt32(p.partition)
        .writeInt64(p.offset)
        .writeInt32(-1) // committed leader epoch: unknown
        .writeUVarIntString(null) // metadata
        .writeUVarInt(NO_TAGGED_FIELDS);
    e.writeUVarInt(NO_TAGGED_FIELDS);
  }
  return e.writeUVarInt(NO_TAGGED_FIELDS).buffer;
}

export function decodeOffsetCommit(data: Buffer, _version: number): OffsetCommitResponse {
  const d = decoder(data);
  d.readTaggedFields();
  const throttleTimeMs = d.readInt32();
  const topics = compactArray(d, (t) => {
    const topic = t.readUVarIntString() ?? '';
    const partitions = compactArray(t, (p) => {
      const partition = { partition: p.readInt32(), errorCode: p.readInt16() };
      p.readTaggedFields();
      return partition;
    });
    t.readTaggedFields();
    return { topic, partitions };
  });
  d.readTaggedFields();
  return { throttleTimeMs, topics };
}

function compactArray<T>(d: Dec, read: (d: Dec) => T): T[] {
  const n = d.readUVarInt() - 1;
  const items: T[] = [];
  for (let i = 0; i < n; i++) items.push(read(d));
  return items;
}

const CODECS = {
  OffsetCommit: { encode: encodeOffsetCommit, decode: decodeOffsetCommit },
  JoinGroup: { encode: encodeJoinGroup, decode: decodeJoinGroup },
  SyncGroup: { encode: encodeSyncGroup, decode: decodeSyncGroup },
  Heartbeat: { encode: encodeHeartbeat, decode: decodeHeartbeat },
  LeaveGroup: { encode: encodeLeaveGroup, decode: decodeLeaveGroup },
};

interface Requests {
  OffsetCommit: [OffsetCommitRequest, OffsetCommitResponse];
  JoinGroup: [JoinGroupRequest, JoinGroupResponse];
  SyncGroup: [SyncGroupRequest, SyncGroupResponse];
  Heartbeat: [HeartbeatRequest, ErrorResponse];
  LeaveGroup: [LeaveGroupRequest, LeaveGroupResponse];
}

/**
 * The request as kafkajs' connection sends it. The response comes back decoded with its error code
 * unchecked: the member decides what each code means (kafkajs' parse would throw them).
 */
export function groupRequest<A extends GroupApi>(
  api: A,
  version: number,
  body: Requests[A][0],
): RequestProtocol<Requests[A][1]> {
  const codec = CODECS[api] as unknown as {
    encode(r: Requests[A][0], v: number): Buffer;
    decode(data: Buffer, v: number): Requests[A][1];
  };
  const bytes = codec.encode(body, version);
  return {
    request: {
      apiKey: API[api].key,
      apiVersion: version,
      apiName: api,
      // kafkajs' request framing takes an encoder: it checks `buf` and copies `buffer`.
      encode: async () => ({ buf: bytes, buffer: bytes }) as unknown as KafkajsEncoder,
    },
    response: {
      decode: async (data: Buffer) => codec.decode(data, version),
      parse: async (r) => r,
    },
  };
}
