import { describe, expect, it } from 'vitest';
import {
  fetchDecodingInstalled,
  fetchedOffset,
  fetchedTimestamp,
  recordBatchDecoder,
} from '../../src/kafka/fetch-decoding.ts';
import { type FetchedPartition, hideAbortedRecords } from '../../src/kafka/read-committed.ts';
import { originalModules, prng, requireKafkajs as require } from './kafkajs-originals.ts';

const decoderPath = require.resolve('kafkajs/src/protocol/recordBatch/v0/decoder.js');
const Decoder = require('kafkajs/src/protocol/decoder.js');
const { RecordBatch } = require('kafkajs/src/protocol/recordBatch/v0/index.js');
// kafkajs' own record encoder (core replaces it too), so that the batches are kafkajs' bytes.
const [Record] = originalModules([
  require.resolve('kafkajs/src/protocol/recordBatch/record/v0/index.js'),
]) as [(args: object) => unknown];
const {
  Types: Compression,
  lookupCodecByAttributes,
} = require('kafkajs/src/protocol/message/compression/index.js');
const { KafkaJSPartialMessageError } = require('kafkajs/src/errors.js');

type BatchDecoder = (decoder: unknown) => Promise<{ records: unknown[] } & Record<string, unknown>>;

/** kafkajs' own batch decoder, loaded past the replacement that @kstreams/core installs. */
function original(): BatchDecoder {
  return originalModules([decoderPath])[0] as BatchDecoder;
}

interface BatchSpec {
  firstOffset: string;
  firstTimestamp: string;
  compression: number;
  transactional: boolean;
  /** Attribute bits set after encoding (control batch, log-append time); kafkajs ignores the CRC. */
  extraAttributes?: number;
}

function records(rand: () => number, n: number) {
  return Array.from({ length: n }, (_, i) => {
    const r = rand();
    const key = r < 0.1 ? null : Buffer.from(`key-${i}-${'k'.repeat(i % 150)}`);
    const value = rand() < 0.05 ? null : Buffer.alloc(Math.floor(rand() * 400), i % 256);
    const headers: Record<string, Buffer | Buffer[]> =
      rand() < 0.2
        ? {
            trace: Buffer.from(`t${i}`),
            dup: [Buffer.from('a'), Buffer.from('b'), Buffer.from('c')],
            '': Buffer.from(''),
          }
        : rand() < 0.1
          ? { ['__proto__']: Buffer.from('p'), constructor: Buffer.from('c') }
          : {};
    // Deltas up to 2^40 ms (more than 32 bits of varint) and negative ones.
    const timestampDelta = rand() < 0.1 ? Math.floor(rand() * 2 ** 40) : Math.floor(rand() * 20_000) - 10_000;
    return Record({ offsetDelta: i, timestampDelta, key, value, headers });
  });
}

async function encode(spec: BatchSpec, rand: () => number, n: number): Promise<Buffer> {
  const batch = await RecordBatch({
    compression: spec.compression,
    firstOffset: spec.firstOffset,
    firstTimestamp: spec.firstTimestamp,
    maxTimestamp: spec.firstTimestamp,
    lastOffsetDelta: n - 1,
    transactional: spec.transactional,
    records: records(rand, n),
  });
  const bytes = Buffer.from(batch.buffer);
  // firstOffset (8) + length (4) + leader epoch (4) + magic (1) + CRC (4), then the attributes.
  if (spec.extraAttributes) bytes.writeInt16BE(bytes.readInt16BE(21) | spec.extraAttributes, 21);
  return bytes;
}

const RECORD_FIELDS = [
  'magicByte',
  'attributes',
  'timestamp',
  'offset',
  'key',
  'value',
  'headers',
  'isControlRecord',
  'batchContext',
] as const;

/** What a reader of a kafkajs message sees. */
function plain(record: unknown): Record<string, unknown> {
  const r = record as Record<string, unknown>;
  return Object.fromEntries(RECORD_FIELDS.map((f) => [f, r[f]]));
}

describe("the fetched record batches' decoding", () => {
  const ours = recordBatchDecoder({
    PartialMessageError: KafkaJSPartialMessageError,
    lookupCodecByAttributes,
  });
  const theirs = original();

  it('returns what kafkajs returns: offsets and timestamps past 2^53, headers, compression, control batches', async () => {
    const rand = prng(7);
    const specs: BatchSpec[] = [
      {
        firstOffset: '0',
        firstTimestamp: '1796000000000',
        compression: Compression.None,
        transactional: false,
      },
      { firstOffset: '123456', firstTimestamp: '-1', compression: Compression.GZIP, transactional: true },
      {
        firstOffset: '9007199254740990',
        firstTimestamp: '9007199254740000',
        compression: Compression.None,
        transactional: false,
      },
      {
        firstOffset: '42',
        firstTimestamp: '1796000000000',
        compression: Compression.None,
        transactional: true,
        extraAttributes: 0x20,
      },
      {
        firstOffset: '7',
        firstTimestamp: '1796000000000',
        compression: Compression.GZIP,
        transactional: false,
        extraAttributes: 0x08,
      },
    ];
    let compared = 0;
    for (const spec of specs) {
      for (const n of [1, 17, 300]) {
        const bytes = await encode(spec, rand, n);
        // Two batches back to back, as in a fetch response: each decoder must stop at its end.
        const twice = Buffer.concat([bytes, bytes]);
        const a = new Decoder(twice);
        const b = new Decoder(twice);
        for (let k = 0; k < 2; k++) {
          const expected = await theirs(a);
          const actual = await ours(b);
          // Records are read through their properties (ours make them on access), as kafkajs does.
          const { records: expectedRecords, ...expectedBatch } = expected;
          const { records: actualRecords, ...actualBatch } = actual;
          expect(actualBatch).toEqual(expectedBatch);
          expect(actualRecords.map(plain)).toEqual(expectedRecords.map(plain));
          // Logged or serialized, a message looks the same; the runtime reads its numbers directly.
          expect(JSON.stringify(actualRecords)).toBe(JSON.stringify(expectedRecords));
          const numbers = (r: unknown) => {
            const m = r as { offset: string; timestamp: string };
            return [fetchedOffset(m), fetchedTimestamp(m)];
          };
          expect(actualRecords.map(numbers)).toEqual(
            expectedRecords.map((r) => {
              const m = r as { offset: string; timestamp: string };
              return [Number(m.offset), Number(m.timestamp)];
            }),
          );
          expect(actual.records).toHaveLength(n);
          for (let i = 0; i < n; i++) {
            const e = expected.records[i] as { headers: object };
            const g = actual.records[i] as { headers: object };
            expect(Object.getPrototypeOf(g.headers)).toBe(Object.getPrototypeOf(e.headers));
            expect(Object.keys(g.headers)).toEqual(Object.keys(e.headers));
          }
          compared += n;
        }
        expect(b.offset).toBe(a.offset);
      }
    }
    expect(compared).toBe(specs.length * 2 * (1 + 17 + 300));
  });

  it("lets its fields be assigned as on kafkajs' objects (the read_committed correction hides records so)", async () => {
    const spec = {
      firstOffset: '40',
      firstTimestamp: '1796000000000',
      compression: Compression.None,
      transactional: true,
    };
    const bytes = await encode(spec, prng(3), 3);
    const batch = await ours(new Decoder(bytes));
    const partition = {
      abortedTransactions: [{ producerId: String(batch.producerId), firstOffset: '40' }],
      messages: batch.records as FetchedPartition['messages'],
    };
    hideAbortedRecords(partition);
    expect(partition.messages.map((m) => m.isControlRecord)).toEqual([true, true, true]);
    const [first] = batch.records as Array<{ offset: string; timestamp: string; key: Buffer | null }>;
    first!.offset = '7';
    first!.timestamp = '9';
    first!.key = Buffer.from('k');
    expect([first!.offset, fetchedOffset(first!), first!.timestamp, fetchedTimestamp(first!)]).toEqual([
      '7',
      7,
      '9',
      9,
    ]);
    expect(first!.key?.toString()).toBe('k');
  });

  it('refuses a partial batch as kafkajs does', async () => {
    const bytes = await encode(
      { firstOffset: '0', firstTimestamp: '0', compression: Compression.None, transactional: false },
      prng(1),
      5,
    );
    const partial = bytes.subarray(0, bytes.length - 3);
    await expect(ours(new Decoder(partial))).rejects.toThrow(KafkaJSPartialMessageError);
    await expect(theirs(new Decoder(partial))).rejects.toThrow(KafkaJSPartialMessageError);
  });

  it("is kafkajs' decoder in this process", () => {
    expect(fetchDecodingInstalled()).toBe(true);
    expect((require(decoderPath) as { kstreams?: boolean }).kstreams).toBe(true);
  });
});
