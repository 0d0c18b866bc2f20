import { afterEach, describe, expect, it, vi } from 'vitest';
import { fastRecordEncoder, produceRequestV3 } from '../../src/kafka/produce-encoding.ts';
import { originalModules, prng, requireKafkajs as require } from './kafkajs-originals.ts';

const recordPath = require.resolve('kafkajs/src/protocol/recordBatch/record/v0/index.js');
const requestPath = require.resolve('kafkajs/src/protocol/requests/produce/v3/request.js');
const Long = require('kafkajs/src/utils/long.js');

type Request = (args: object) => { encode(): Promise<{ buffer: Buffer }>; apiVersion: number };

/** kafkajs' own modules, loaded past the replacements that @kstreams/core installs. */
type RecordEncoder = Parameters<typeof fastRecordEncoder>[0];

function originals(): { record: RecordEncoder; request: Request } {
  const [record, request] = originalModules([recordPath, requestPath]);
  return { record: record as RecordEncoder, request: request as Request };
}

function messages(rand: () => number, n: number, base: number) {
  return Array.from({ length: n }, (_, i) => {
    const r = rand();
    const key = r < 0.1 ? null : r < 0.15 ? `text-${i}` : Buffer.from(`key-${i}-${'x'.repeat(i % 200)}`);
    const value = rand() < 0.05 ? null : Buffer.alloc(Math.floor(rand() * 300), i % 256);
    const t = base + Math.floor(rand() * 5000) - 2500;
    const timestamp = rand() < 0.1 ? undefined : rand() < 0.5 ? String(t) : t;
    const headers =
      rand() < 0.1 ? { trace: Buffer.from('t'), list: ['a', 'b'] } : rand() < 0.5 ? {} : undefined;
    return { key, value, timestamp, headers };
  });
}

async function bytes(request: Request, args: object): Promise<Buffer> {
  return (await request(args).encode()).buffer;
}

describe("the produce request's encoding", () => {
  afterEach(() => vi.restoreAllMocks());

  it('writes the bytes kafkajs writes: keys, values, headers, timestamps, transactions, compression', async () => {
    const { record, request } = originals();
    const fallback = vi.fn(record);
    const ours = produceRequestV3(fastRecordEncoder(fallback)) as unknown as Request;
    vi.spyOn(Date, 'now').mockReturnValue(1_796_000_000_000);
    const rand = prng(7);
    for (const [round, compression] of [0, 0, 1, 0].entries()) {
      const args = {
        acks: -1,
        timeout: 30_000,
        transactionalId: round % 2 === 0 ? 'app-0_1' : null,
        producerId: Long.fromValue(1234 + round),
        producerEpoch: round,
        compression,
        topicData: [
          {
            topic: 'words',
            partitions: [
              { partition: 0, firstSequence: 5, messages: messages(rand, 500, 1_796_000_000_000) },
              { partition: 3, firstSequence: 0, messages: messages(rand, 7, 1_796_000_100_000) },
            ],
          },
          {
            topic: 'counts',
            partitions: [
              // No timestamps at all: the batch takes Date.now(); a delta past 2^30 ms goes through kafkajs.
              { partition: 1, messages: [{ key: Buffer.from('a'), value: Buffer.from('1') }] },
              {
                partition: 2,
                messages: [
                  { key: Buffer.from('b'), value: Buffer.from('2'), timestamp: '1000' },
                  { key: Buffer.from('c'), value: Buffer.from('3'), timestamp: 1000 + 2 ** 31 },
                ],
              },
            ],
          },
        ],
      };
      expect((await bytes(ours, args)).equals(await bytes(request, args)), `round ${round}`).toBe(true);
    }
    // Most records took the fast path; string keys, headers and the long delta took kafkajs'.
    expect(fallback.mock.calls.length).toBeGreaterThan(50);
    expect(fallback.mock.calls.length).toBeLessThan(4 * 507 * 0.4);
  });
});
