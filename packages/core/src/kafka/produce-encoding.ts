// kafkajs 2.2.4 encodes each produced record through a fresh 512-byte zero-filled Encoder, one
// small Buffer per varint, Long arithmetic for the timestamp delta, and a spread copy of the
// message; the produce request also sorts the batch's timestamps as strings. In the word-count
// benchmark's CPU profile (exactly_once, with the record cache) that encoding was about 17% of the
// app's self time, plus much of the 15% spent collecting garbage.
//
// This installs, before kafkajs loads (like producer-grouping.ts), a produce request (v3, which
// v4-v7 reuse) and a record encoder that write the same bytes with one exact-size buffer per
// record. Records it does not specialise (string keys or values, headers, timestamp deltas of
// 2^30 ms or more) go through kafkajs' own record encoder, unchanged. A unit test compares both
// encoders' bytes for the same messages.
import { writeLong } from '@kstreams/state-store';
import {
  type OutputBatch,
  recordBodyBytes,
  sizeOfVarInt,
  writeRecordHead,
} from '../processor/internals/output-batch.ts';
import {
  installModule,
  loadedExports,
  requireFromCore as require,
  resolveKafkajsModule,
} from './kafkajs-modules.ts';

/**
 * Marks a message that stands for an encoded batch (processor/internals/output-batch.ts): the
 * producer passes kafkajs as many references to one such message as the batch has records, so
 * that kafkajs' sequence numbers count them, and the request below writes the batch's bytes.
 */
export const ENCODED_BATCH = Symbol('kstreams.encodedBatch');

export interface EncodedBatchMessage {
  partition: number;
  key: null;
  value: null;
  [ENCODED_BATCH]: OutputBatch;
}

interface KafkajsEncoder {
  buf: Buffer;
  offset: number;
  readonly buffer: Buffer;
  writeString(value: string | null): KafkajsEncoder;
  writeInt16(value: number): KafkajsEncoder;
  writeInt32(value: number): KafkajsEncoder;
  writeArray(values: unknown[]): KafkajsEncoder;
  writeEncoder(value: KafkajsEncoder): KafkajsEncoder;
  writeBuffer(value: Buffer): KafkajsEncoder;
}

interface RecordArgs {
  offsetDelta?: number;
  timestampDelta?: number;
  key?: Buffer | string | null;
  value?: Buffer | string | null;
  headers?: { [key: string]: unknown };
}

type RecordEncoder = (args: RecordArgs) => { buf: Buffer; offset: number; readonly buffer: Buffer };

interface Message {
  key?: Buffer | string | null;
  value?: Buffer | string | null;
  timestamp?: string | number | null;
  headers?: { [key: string]: unknown };
}

/** Below this, the zigzag varint of a 32-bit number has the bytes of the 64-bit one. */
const SMALL = 2 ** 30;

function isPlainBytes(value: unknown): value is Buffer | null | undefined {
  return value === null || value === undefined || Buffer.isBuffer(value);
}

function hasNoHeaders(headers: { [key: string]: unknown } | undefined): boolean {
  if (headers === undefined) return true;
  for (const _ in headers) return false;
  return true;
}

/** kafkajs' record v0 (Kafka's record format v2) for byte keys and values without headers. */
export function fastRecordEncoder(fallback: RecordEncoder): RecordEncoder {
  return (args) => {
    const { offsetDelta = 0, timestampDelta = 0, key, value, headers } = args;
    if (
      !isPlainBytes(key) ||
      !isPlainBytes(value) ||
      !hasNoHeaders(headers) ||
      !Number.isInteger(timestampDelta) ||
      Math.abs(timestampDelta) >= SMALL
    ) {
      return fallback(args);
    }
    // No headers: their count's varint is one zero byte.
    const body = recordBodyBytes(timestampDelta, offsetDelta, key, value, 1);
    const buf = Buffer.allocUnsafe(sizeOfVarInt(body) + body);
    let at = writeRecordHead(buf, 0, body, timestampDelta, offsetDelta, key, value);
    buf[at++] = 0;
    return { buf, offset: at, buffer: buf };
  };
}

/**
 * The batch's first and last timestamp as kafkajs picks them: the non-null timestamps sorted as
 * strings (Array.prototype.sort without a comparator), smallest first, the original values kept.
 */
function timestampRange(messages: Message[]): { first: unknown; max: unknown } | undefined {
  let first: unknown;
  let max: unknown;
  let firstKey = '';
  let maxKey = '';
  let any = false;
  for (const { timestamp } of messages) {
    if (timestamp == null) continue;
    const key = String(timestamp);
    if (!any || key < firstKey) [first, firstKey] = [timestamp, key];
    if (!any || key >= maxKey) [max, maxKey] = [timestamp, key];
    any = true;
  }
  return any ? { first, max } : undefined;
}

interface ProduceArgs {
  acks: number;
  timeout: number;
  transactionalId?: string | null;
  producerId?: unknown;
  producerEpoch?: number;
  compression?: number;
  topicData: Array<{
    topic: string;
    partitions: Array<{ partition: number; firstSequence?: number; messages: Message[] }>;
  }>;
}

/** kafkajs' produce request v3, with the record encoder above and no per-message copies. */
export function produceRequestV3(record: RecordEncoder) {
  const Long = require('kafkajs/src/utils/long.js');
  const Encoder = require('kafkajs/src/protocol/encoder.js') as new () => KafkajsEncoder;
  const { Produce: apiKey } = require('kafkajs/src/protocol/requests/apiKeys.js');
  const { Types } = require('kafkajs/src/protocol/message/compression/index.js');
  const { RecordBatch } = require('kafkajs/src/protocol/recordBatch/v0/index.js');

  return ({
    acks,
    timeout,
    transactionalId = null,
    producerId = Long.fromInt(-1),
    producerEpoch = 0,
    compression = Types.None,
    topicData,
  }: ProduceArgs) => ({
    apiKey,
    apiVersion: 3,
    apiName: 'Produce',
    expectResponse: () => acks !== 0,
    encode: async () => {
      const topics: KafkajsEncoder[] = [];
      for (const { topic, partitions } of topicData) {
        const encoded: KafkajsEncoder[] = [];
        for (const { partition, firstSequence, messages } of partitions) {
          const prebuilt = (messages[0] as Partial<EncodedBatchMessage> | undefined)?.[ENCODED_BATCH];
          if (prebuilt !== undefined) {
            const bytes = batchWithHeader(prebuilt, messages, {
              producerId: Long.fromValue(producerId),
              producerEpoch,
              firstSequence: firstSequence ?? 0,
              transactional: !!transactionalId,
              compressed: compression !== Types.None,
            });
            encoded.push(new Encoder().writeInt32(partition).writeInt32(bytes.length).writeBuffer(bytes));
            continue;
          }
          const dateNow = Date.now();
          const range = timestampRange(messages);
          const firstTimestamp = range === undefined ? dateNow : range.first;
          const maxTimestamp = range === undefined ? dateNow : range.max;
          const records = new Array(messages.length);
          for (let i = 0; i < messages.length; i++) {
            const message = messages[i]!;
            records[i] = record({
              key: message.key,
              value: message.value,
              headers: message.headers,
              offsetDelta: i,
              timestampDelta: ((message.timestamp || dateNow) as number) - (firstTimestamp as number),
            } as RecordArgs);
          }
          const batch = await RecordBatch({
            compression,
            records,
            firstTimestamp,
            maxTimestamp,
            producerId,
            producerEpoch,
            firstSequence,
            transactional: !!transactionalId,
            lastOffsetDelta: records.length - 1,
          });
          encoded.push(new Encoder().writeInt32(partition).writeInt32(batch.size()).writeEncoder(batch));
        }
        topics.push(new Encoder().writeString(topic).writeArray(encoded));
      }
      return new Encoder()
        .writeString(transactionalId)
        .writeInt16(acks)
        .writeInt32(timeout)
        .writeArray(topics);
    },
  });
}

interface KafkajsLong {
  getHighBits(): number;
  getLowBits(): number;
}

interface BatchHeader {
  producerId: KafkajsLong;
  producerEpoch: number;
  firstSequence: number;
  transactional: boolean;
  compressed: boolean;
}

const TRANSACTIONAL = 0x10;

let crc32CFunction: ((bytes: Buffer) => number) | undefined;
function crc32C(bytes: Buffer): number {
  crc32CFunction ??= require('kafkajs/src/protocol/recordBatch/crc32C/index.js') as (bytes: Buffer) => number;
  return crc32CFunction(bytes);
}

/**
 * Writes the header of an encoded batch (Kafka's record batch, magic 2) into the room it left:
 * producer id, epoch and first sequence as kafkajs assigned them to this request.
 */
export function batchWithHeader(batch: OutputBatch, messages: unknown[], header: BatchHeader): Buffer {
  // kafkajs would merge two batches of one partition into one list: never sent so (producers.ts).
  if (messages.length !== batch.count || messages[messages.length - 1] !== messages[0]) {
    throw new Error(
      `kstreams: a produce request got ${messages.length} messages for ${batch.topic}-${batch.partition}, ` +
        `not the ${batch.count} references to its encoded batch`,
    );
  }
  if (header.compressed) throw new Error('kstreams: encoded batches are sent uncompressed');
  const buf = batch.encoded;
  buf.writeInt32BE(0, 0); // base offset: the broker assigns it
  buf.writeInt32BE(0, 4);
  buf.writeInt32BE(buf.length - 12, 8);
  buf.writeInt32BE(0, 12); // partition leader epoch, as kafkajs writes it
  buf.writeInt8(2, 16);
  buf.writeInt16BE(header.transactional ? TRANSACTIONAL : 0, 21);
  buf.writeInt32BE(batch.count - 1, 23);
  writeLong(buf, batch.baseTimestamp, 27);
  writeLong(buf, batch.maxTimestamp, 35);
  buf.writeInt32BE(header.producerId.getHighBits(), 43);
  buf.writeInt32BE(header.producerId.getLowBits(), 47);
  buf.writeInt16BE(header.producerEpoch, 51);
  buf.writeInt32BE(header.firstSequence, 53);
  buf.writeInt32BE(batch.count, 57);
  buf.writeUInt32BE(crc32C(buf.subarray(21)), 17);
  return buf;
}

let installed = false;

function install(): void {
  const recordPath = resolveKafkajsModule('kafkajs/src/protocol/recordBatch/record/v0/index.js');
  const requestPath = resolveKafkajsModule('kafkajs/src/protocol/requests/produce/v3/request.js');
  if (recordPath === undefined || requestPath === undefined) return;
  // Loaded already (kafkajs came before @kstreams/core, or a bundle): keep kafkajs' own.
  const loaded = loadedExports(requestPath);
  if (loaded !== undefined) {
    installed = (loaded as { kstreams?: boolean }).kstreams === true;
    return;
  }
  const original = require(recordPath) as RecordEncoder;
  const record = fastRecordEncoder(original);
  installModule(recordPath, record);
  const request = Object.assign(produceRequestV3(record), { kstreams: true });
  installModule(requestPath, request);
  installed = true;
}

install();

/** Whether kafkajs' producer in this process uses the encoders above. */
export const produceEncodingInstalled = () => installed;
