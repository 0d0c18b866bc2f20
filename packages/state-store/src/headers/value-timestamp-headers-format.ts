// The bytes of a headers-aware store (Kafka Streams 4.3's KIP-1271: TimestampedKeyValueStoreWithHeaders,
// whose values are ValueTimestampHeaders), so that a store and its changelog read the same in both:
//
//   varint(size of the headers part) | headers part | 8-byte big-endian timestamp | value bytes
//   headers part: varint(count), then per header varint(key length) key (UTF-8),
//                 varint(value length) value, or varint(-1) for a null value; empty when there are none
//
// Every varint is Kafka's zigzag int32 varint (ByteUtils.writeVarint), as in record headers on the wire.
import { InvalidStoreArgumentError } from '../errors.ts';
import { readLong, writeLong } from '../long-bytes.ts';

/** One record header as a store keeps it: its key, and its value's bytes (null: a header without value). */
export type StoreHeader = readonly [key: string, value: Buffer | null];

const TIMESTAMP_BYTES = 8;
/** The headers part of a value without headers: nothing, so its size prefix is varint(0). */
const NO_HEADERS = Buffer.alloc(0);

function sizeOfVarint(value: number): number {
  let v = ((value << 1) ^ (value >> 31)) >>> 0;
  let bytes = 1;
  while (v >= 0x80) {
    v >>>= 7;
    bytes++;
  }
  return bytes;
}

function writeVarint(target: Buffer, at: number, value: number): number {
  let v = ((value << 1) ^ (value >> 31)) >>> 0;
  while (v >= 0x80) {
    target[at++] = (v & 0x7f) | 0x80;
    v >>>= 7;
  }
  target[at++] = v;
  return at;
}

/** Reads a zigzag varint at `pos.at` and moves past it; refuses bytes that end inside one. */
function readVarint(source: Buffer, pos: { at: number }): number {
  let result = 0;
  let shift = 0;
  for (;;) {
    if (pos.at >= source.length || shift > 28) throw corrupt('a varint runs past its bytes');
    const byte = source[pos.at++]!;
    result |= (byte & 0x7f) << shift;
    if (byte < 0x80) break;
    shift += 7;
  }
  return (result >>> 1) ^ -(result & 1);
}

function corrupt(what: string): InvalidStoreArgumentError {
  return new InvalidStoreArgumentError(
    `A headers-aware store value is not in Kafka Streams' ValueTimestampHeaders format: ${what}. ` +
      'Was the store written in another format (dslStoreFormat changed)? Reset the local state so it restores from its changelog.',
  );
}

/** Kafka Streams' HeadersSerializer: the headers part (empty bytes for no headers). */
export function encodeHeaders(headers: Iterable<StoreHeader>): Buffer {
  const list = [...headers];
  if (list.length === 0) return NO_HEADERS;
  const keys = list.map(([key]) => Buffer.from(key, 'utf8'));
  let size = sizeOfVarint(list.length);
  for (let i = 0; i < list.length; i++) {
    const value = list[i]![1];
    size += sizeOfVarint(keys[i]!.length) + keys[i]!.length;
    size += value === null ? 1 : sizeOfVarint(value.length) + value.length;
  }
  const bytes = Buffer.allocUnsafe(size);
  let at = writeVarint(bytes, 0, list.length);
  for (let i = 0; i < list.length; i++) {
    const value = list[i]![1];
    at = writeVarint(bytes, at, keys[i]!.length);
    at += keys[i]!.copy(bytes, at);
    if (value === null) {
      at = writeVarint(bytes, at, -1);
    } else {
      at = writeVarint(bytes, at, value.length);
      at += value.copy(bytes, at);
    }
  }
  return bytes;
}

/** Kafka Streams' HeadersDeserializer: the headers of a headers part, in their order. */
export function decodeHeaders(part: Buffer): StoreHeader[] {
  if (part.length === 0) return [];
  const pos = { at: 0 };
  const count = readVarint(part, pos);
  const headers: StoreHeader[] = [];
  for (let i = 0; i < count; i++) {
    const keyLength = readVarint(part, pos);
    const key = readBytes(part, pos, keyLength).toString('utf8');
    const valueLength = readVarint(part, pos);
    headers.push([key, valueLength < 0 ? null : Buffer.from(readBytes(part, pos, valueLength))]);
  }
  return headers;
}

function readBytes(source: Buffer, pos: { at: number }, length: number): Buffer {
  if (length < 0 || pos.at + length > source.length) throw corrupt('a header runs past its bytes');
  const bytes = source.subarray(pos.at, pos.at + length);
  pos.at += length;
  return bytes;
}

/** A stored value's parts, as views into its bytes. */
export interface ValueTimestampHeadersBytes {
  /** The headers part (decode with decodeHeaders); empty for none. */
  readonly headers: Buffer;
  readonly timestamp: number;
  readonly value: Buffer;
}

/** A stored value from its headers part (encodeHeaders), timestamp and value bytes. */
export function encodeValueTimestampHeaders(headers: Buffer, timestamp: number, value: Buffer): Buffer {
  const prefix = sizeOfVarint(headers.length);
  const bytes = Buffer.allocUnsafe(prefix + headers.length + TIMESTAMP_BYTES + value.length);
  let at = writeVarint(bytes, 0, headers.length);
  at += headers.copy(bytes, at);
  writeLong(bytes, timestamp, at);
  value.copy(bytes, at + TIMESTAMP_BYTES);
  return bytes;
}

/** Splits a stored value into its headers part, timestamp and value bytes (views, not copies). */
export function splitValueTimestampHeaders(bytes: Buffer): ValueTimestampHeadersBytes {
  const pos = { at: 0 };
  const size = readVarint(bytes, pos);
  if (size < 0 || pos.at + size + TIMESTAMP_BYTES > bytes.length) throw corrupt('it is too short');
  const headers = bytes.subarray(pos.at, pos.at + size);
  const at = pos.at + size;
  return {
    headers,
    timestamp: readLong(bytes, at),
    value: bytes.subarray(at + TIMESTAMP_BYTES),
  };
}

/**
 * A headers-aware session store's value (Kafka Streams 4.4's AggregationWithHeaders, KIP-1285):
 * `varint(size of the headers part) | headers part | aggregation bytes`; no timestamp, as session
 * stores keep none (a session's timestamp is its end).
 */
export function encodeAggregationWithHeaders(headers: Buffer, aggregation: Buffer): Buffer {
  const prefix = sizeOfVarint(headers.length);
  const bytes = Buffer.allocUnsafe(prefix + headers.length + aggregation.length);
  const at = writeVarint(bytes, 0, headers.length);
  headers.copy(bytes, at);
  aggregation.copy(bytes, at + headers.length);
  return bytes;
}

/** Splits a session store's AggregationWithHeaders bytes into its headers part and aggregation (views). */
export function splitAggregationWithHeaders(bytes: Buffer): { headers: Buffer; aggregation: Buffer } {
  const pos = { at: 0 };
  const size = readVarint(bytes, pos);
  if (size < 0 || pos.at + size > bytes.length) throw corrupt('it is too short');
  return {
    headers: bytes.subarray(pos.at, pos.at + size),
    aggregation: bytes.subarray(pos.at + size),
  };
}
