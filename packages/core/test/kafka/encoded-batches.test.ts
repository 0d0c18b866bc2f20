import { describe, expect, it } from 'vitest';
import {
  batchWithHeader,
  ENCODED_BATCH,
  fastRecordEncoder,
  produceRequestV3,
} from '../../src/kafka/produce-encoding.ts';
import { batchMessages, planBatchSends } from '../../src/kafka/producers.ts';
import { MAX_BATCH_BYTES } from '../../src/processor/internals/output-batch.ts';
import { partitionForKey } from '../../src/processor/internals/partitioner.ts';
import { BufferingRecordCollector } from '../../src/processor/internals/record-collector.ts';
import type { OutputRecord } from '../../src/processor/internals/records.ts';
import { originalModules, prng, requireKafkajs as require } from './kafkajs-originals.ts';

const recordPath = require.resolve('kafkajs/src/protocol/recordBatch/record/v0/index.js');
const requestPath = require.resolve('kafkajs/src/protocol/requests/produce/v3/request.js');
const decoderPath = require.resolve('kafkajs/src/protocol/recordBatch/v0/decoder.js');
const Decoder = require('kafkajs/src/protocol/decoder.js');
const Long = require('kafkajs/src/utils/long.js');

type Request = (args: object) => { encode(): Promise<{ buffer: Buffer }> };
type RecordEncoder = Parameters<typeof fastRecordEncoder>[0];
type BatchDecoder = (decoder: unknown) => Promise<{
  records: Array<{
    key: Buffer | null;
    value: Buffer | null;
    timestamp: string;
    headers: object;
    offset: string;
  }>;
  [field: string]: unknown;
}>;

function originals(): { record: RecordEncoder; request: Request; decode: BatchDecoder } {
  const [record, request, decode] = originalModules([recordPath, requestPath, decoderPath]);
  return { record: record as RecordEncoder, request: request as Request, decode: decode as BatchDecoder };
}

function outputRecords(rand: () => number, n: number, base: number, ascending: boolean): OutputRecord[] {
  return Array.from({ length: n }, (_, i) => {
    const r = rand();
    const key = r < 0.1 ? null : Buffer.from(`key-${i}-${'x'.repeat(i % 200)}`);
    const value = rand() < 0.05 ? null : Buffer.alloc(Math.floor(rand() * 300), i % 256);
    // Descending and far-apart timestamps (deltas past 2^31 ms) when not ascending.
    const timestamp = ascending ? base + i * 7 : base + Math.floor((rand() - 0.5) * 2 ** 33);
    const headers =
      rand() < 0.2 ? { trace: Buffer.from(`t${i}`), text: 'ünïcode', gone: undefined } : undefined;
    return { topic: 'words', key, value, timestamp, ...(headers ? { headers } : {}) };
  });
}

const header = {
  producerId: Long.fromValue(77),
  producerEpoch: 3,
  firstSequence: 9,
  transactional: true,
  compressed: false,
};

describe('output encoded into record batches at the sink', () => {
  it('writes the produce request kafkajs writes for the same records (ascending timestamps)', async () => {
    const { record, request } = originals();
    const collector = new BufferingRecordCollector(() => 4);
    const records = outputRecords(prng(3), 300, 1_796_000_000_000, true);
    for (const r of records) collector.send({ ...r, partition: 2 });
    const { batches, records: unencoded } = collector.drain();
    expect(unencoded).toEqual([]);
    expect(batches).toHaveLength(1);
    const args = (messages: unknown[]) => ({
      acks: -1,
      timeout: 30_000,
      transactionalId: 'app-0_2',
      producerId: Long.fromValue(1234),
      producerEpoch: 2,
      topicData: [{ topic: 'words', partitions: [{ partition: 2, firstSequence: 41, messages }] }],
    });
    const ours = produceRequestV3(fastRecordEncoder(record)) as unknown as Request;
    const markers = batchMessages(batches)[0]!.messages;
    expect(markers).toHaveLength(300);
    const plain = records.map((r) => ({
      key: r.key,
      value: r.value,
      timestamp: String(r.timestamp),
      ...(r.headers ? { headers: { trace: r.headers.trace, text: r.headers.text } } : {}),
    }));
    const mine = (await ours(args(markers)).encode()).buffer;
    expect(mine.equals((await request(args(plain)).encode()).buffer)).toBe(true);
  });

  it("reads back through kafkajs' decoder: out-of-order and far-apart timestamps, null keys and values, headers", async () => {
    const { decode } = originals();
    const records = outputRecords(prng(11), 500, 1_796_000_000_000, false);
    const collector = new BufferingRecordCollector(() => 1);
    for (const r of records) collector.send(r);
    const [batch] = collector.drain().batches;
    const bytes = batchWithHeader(batch!, batchMessages([batch!])[0]!.messages, header);
    const decoded = await decode(new Decoder(bytes));
    expect(decoded).toMatchObject({
      inTransaction: true,
      producerId: '77',
      producerEpoch: 3,
      firstSequence: 9,
    });
    expect(decoded.records).toHaveLength(500);
    decoded.records.forEach((d, i) => {
      const r = records[i]!;
      expect(d.offset).toBe(String(i));
      expect(d.timestamp).toBe(String(r.timestamp));
      expect(d.key).toEqual(r.key);
      expect(d.value).toEqual(r.value);
      expect(d.headers).toEqual(r.headers ? { trace: r.headers.trace, text: Buffer.from('ünïcode') } : {});
    });
  });

  it("partitions as the Java producer does, closes full batches, and sends a partition's batches one per request", () => {
    const collector = new BufferingRecordCollector((topic) => (topic === 'words' ? 5 : undefined));
    const big = Buffer.alloc(100 * 1024, 1);
    const sent: OutputRecord[] = [];
    for (let i = 0; i < 40; i++) {
      const r: OutputRecord = {
        topic: 'words',
        key: Buffer.from(i % 10 === 0 ? 'big' : `w${i % 8}`),
        value: i % 10 === 0 ? big : Buffer.from([i]),
        timestamp: i,
      };
      sent.push(r);
      collector.send(r);
    }
    collector.send({ topic: 'elsewhere', key: Buffer.from('k'), value: null, timestamp: 0 });
    const out = collector.drain();
    expect(out.records.map((r) => r.topic)).toEqual(['elsewhere']);
    for (const b of out.batches) {
      expect(b.bytes).toBeLessThanOrEqual(MAX_BATCH_BYTES + 1024);
      expect(b.topic).toBe('words');
    }
    expect(out.batches.reduce((n, b) => n + b.count, 0)).toBe(40);
    // Each key's records landed in its murmur2 partition, in order.
    const byPartition = new Map<number, number>();
    for (const r of sent) {
      const p = partitionForKey(r.key!, 5);
      byPartition.set(p, (byPartition.get(p) ?? 0) + 1);
    }
    const counted = new Map<number, number>();
    for (const b of out.batches) counted.set(b.partition, (counted.get(b.partition) ?? 0) + b.count);
    expect(counted).toEqual(byPartition);
    // Four 100 KiB values in one partition's records: more than one batch there.
    const sends = planBatchSends(out.batches);
    expect(out.batches.length).toBeGreaterThan(new Set(out.batches.map((b) => b.partition)).size);
    for (const send of sends) {
      const partitions = send.map((b) => b.partition);
      expect(new Set(partitions).size).toBe(partitions.length);
    }
    expect(sends.flat().length).toBe(out.batches.length);
    for (const p of new Set(out.batches.map((b) => b.partition))) {
      const inOrder = out.batches.filter((b) => b.partition === p);
      expect(sends.flat().filter((b) => b.partition === p)).toEqual(inOrder);
    }
  });

  it('refuses a request whose messages are not one encoded batch', () => {
    const collector = new BufferingRecordCollector(() => 1);
    collector.send({ topic: 't', key: null, value: Buffer.from('a'), timestamp: 1 });
    collector.send({ topic: 't', key: null, value: Buffer.from('b'), timestamp: 2 });
    const [batch] = collector.drain().batches;
    const [marker] = batchMessages([batch!])[0]!.messages;
    expect((marker as unknown as { [ENCODED_BATCH]: unknown })[ENCODED_BATCH]).toBe(batch);
    expect(() => batchWithHeader(batch!, [marker], header)).toThrow(/not the 2 references/);
  });
});
