// The headers-aware stores' value format against bytes Kafka Streams 4.4.0 wrote: the expected hex
// below came from its ValueTimestampHeadersSerde (org.apache.kafka.streams.state.internals, with
// Serdes.String()) on 2026-12-06, for the same values, timestamps and headers.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  decodeHeaders,
  encodeAggregationWithHeaders,
  encodeHeaders,
  encodeValueTimestampHeaders,
  InMemoryKeyValueStore,
  InvalidStoreArgumentError,
  type KeyValueBytesStore,
  LevelKeyValueStore,
  StoreFormatError,
  type StoreHeader,
  splitAggregationWithHeaders,
  splitValueTimestampHeaders,
} from '../src/index.ts';
import { b, tempDir } from './helpers.ts';

const TRACE: StoreHeader[] = [
  ['traceparent', b('00-abc-01')],
  ['n', null],
  ['traceparent', b('dup')],
];

const JAVA = {
  // make("v", 5, no headers)
  noHeaders: '00000000000000000576',
  // make("hello", 1700000000000, traceparent=00-abc-01, n=null, traceparent=dup)
  withHeaders:
    '5406167472616365706172656e741230302d6162632d3031026e01167472616365706172656e74066475700000018bcfe5680068656c6c6f',
  // make("", -1, no headers)
  emptyValue: '00ffffffffffffffff',
};

describe("ValueTimestampHeaders format (Kafka Streams' headers-aware stores)", () => {
  it('writes the bytes Kafka Streams writes', () => {
    const hex = (headers: StoreHeader[], timestamp: number, value: string) =>
      encodeValueTimestampHeaders(encodeHeaders(headers), timestamp, b(value)).toString('hex');
    expect(hex([], 5, 'v')).toBe(JAVA.noHeaders);
    expect(hex(TRACE, 1_700_000_000_000, 'hello')).toBe(JAVA.withHeaders);
    expect(hex([], -1, '')).toBe(JAVA.emptyValue);
  });

  it("reads Kafka Streams' bytes: headers in order, duplicates and null values kept", () => {
    const parts = splitValueTimestampHeaders(Buffer.from(JAVA.withHeaders, 'hex'));
    expect(parts.timestamp).toBe(1_700_000_000_000);
    expect(parts.value.toString()).toBe('hello');
    expect(decodeHeaders(parts.headers)).toEqual(TRACE);
    const none = splitValueTimestampHeaders(Buffer.from(JAVA.noHeaders, 'hex'));
    expect([none.timestamp, none.value.toString(), decodeHeaders(none.headers)]).toEqual([5, 'v', []]);
  });

  it('round-trips header values longer than one varint byte and non-ASCII keys', () => {
    const long = Buffer.alloc(300, 7);
    const headers: StoreHeader[] = [
      ['é-key', long],
      ['empty', Buffer.alloc(0)],
    ];
    const bytes = encodeValueTimestampHeaders(encodeHeaders(headers), 42, b('x'));
    const parts = splitValueTimestampHeaders(bytes);
    expect(decodeHeaders(parts.headers)).toEqual(headers);
    expect([parts.timestamp, parts.value.toString()]).toEqual([42, 'x']);
  });

  it('refuses bytes of another format with an error that says what to do', () => {
    // Too short for a size prefix and a timestamp; a header count with no headers after it.
    expect(() => splitValueTimestampHeaders(Buffer.from('0000017', 'hex'))).toThrow(
      InvalidStoreArgumentError,
    );
    expect(() => decodeHeaders(Buffer.from('0206', 'hex'))).toThrow(/dslStoreFormat changed/);
  });
});

describe('headers-aware values in the bytes stores', () => {
  let dir: string;
  let remove: () => Promise<void>;
  const opened: KeyValueBytesStore[] = [];

  beforeEach(async () => {
    ({ dir, remove } = await tempDir());
  });

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((s) => s.close()));
    await remove();
  });

  const kinds: Array<[string, () => KeyValueBytesStore]> = [
    ['LevelDB', () => new LevelKeyValueStore({ name: 'agg', location: `${dir}/agg` })],
    ['in-memory', () => new InMemoryKeyValueStore('agg')],
  ];

  it.each(kinds)('%s keeps the value, timestamp and headers', async (_kind, create) => {
    const store = create();
    opened.push(store);
    await store.open();
    await store.put(b('k'), encodeValueTimestampHeaders(encodeHeaders(TRACE), 1_700_000_000_000, b('hello')));
    const read = store.get(b('k'));
    expect(read?.toString('hex')).toBe(JAVA.withHeaders);
    expect(decodeHeaders(splitValueTimestampHeaders(read!).headers)).toEqual(TRACE);
  });
});

describe('a LevelDB store records its value layout', () => {
  let dir: string;
  let remove: () => Promise<void>;

  beforeEach(async () => {
    ({ dir, remove } = await tempDir());
  });
  afterEach(async () => {
    await remove();
  });

  const open = async (valueFormat?: string) => {
    const store = new LevelKeyValueStore({
      name: 'agg',
      location: `${dir}/agg`,
      ...(valueFormat ? { valueFormat } : {}),
    });
    await store.open();
    return store;
  };

  it('refuses entries written in another layout, either way, and lets an empty store change', async () => {
    const headers = await open('headers');
    await headers.put(b('k'), encodeValueTimestampHeaders(encodeHeaders([]), 1, b('v')));
    await headers.close();
    // The same entries opened as a timestamped store: refused, naming the store and what to do.
    await expect(open()).rejects.toThrow(StoreFormatError);
    await expect(open()).rejects.toThrow(
      /"agg" .* holds values in the headers format but is opened for the default format/,
    );
    const again = await open('headers');
    expect(again.get(b('k'))?.toString('hex')).toBe('00000000000000000176');
    await again.delete(b('k'));
    await again.close();
    // Empty now: the default layout takes it over, and then headers cannot open its entries.
    const plain = await open();
    await plain.put(b('k'), b('0000000000000001v'));
    await plain.close();
    await expect(open('headers')).rejects.toThrow(
      /holds values in the default format but is opened for the headers format/,
    );
  });
});

// A headers-aware session store's values: the expected hex came from Kafka Streams 4.4.0's
// AggregationWithHeadersSerde (with Serdes.String()) on 2026-12-06.
describe("AggregationWithHeaders format (Kafka Streams 4.4's headers-aware session stores)", () => {
  const JAVA_AGGREGATION = {
    // make("x+y", no headers)
    noHeaders: '00782b79',
    // make("agg", traceparent=00-abc-01, n=null)
    withHeaders: '3404167472616365706172656e741230302d6162632d3031026e01616767',
  };
  const headers: StoreHeader[] = [
    ['traceparent', b('00-abc-01')],
    ['n', null],
  ];

  it('writes the bytes Kafka Streams writes and splits them back', () => {
    expect(encodeAggregationWithHeaders(encodeHeaders([]), b('x+y')).toString('hex')).toBe(
      JAVA_AGGREGATION.noHeaders,
    );
    const bytes = encodeAggregationWithHeaders(encodeHeaders(headers), b('agg'));
    expect(bytes.toString('hex')).toBe(JAVA_AGGREGATION.withHeaders);
    const parts = splitAggregationWithHeaders(Buffer.from(JAVA_AGGREGATION.withHeaders, 'hex'));
    expect(decodeHeaders(parts.headers)).toEqual(headers);
    expect(parts.aggregation.toString()).toBe('agg');
    expect(() => splitAggregationWithHeaders(Buffer.from('34', 'hex'))).toThrow(InvalidStoreArgumentError);
  });
});
