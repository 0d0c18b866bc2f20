// A task's output records for one topic-partition, written into Kafka's record batch format (magic
// 2) as the sink hands them over, as Java's producer accumulates them. Holding a send's records as
// objects until the broker acknowledged them (the record, its key and value Buffers, kafkajs'
// message object) made them outlive the young generation: in the word count's heap profile they
// were about 45% of what V8 promoted to its old generation, and each small Buffer kept an 8 KiB
// pool slab alive. Here they become bytes at once and the objects die young.
//
// The 61-byte batch header is left blank: the producer id, epoch and first sequence are known only
// when kafkajs builds the produce request (kafka/produce-encoding.ts writes the header then).

/** Kafka's record batch header (magic 2), up to the records count. */
export const BATCH_HEADER_BYTES = 61;
/** A batch is closed when it holds this much: one produce request carries one batch per partition. */
export const MAX_BATCH_BYTES = 256 * 1024;
const INITIAL_BYTES = 4 * 1024;
const VARINT_CONTINUES = 0xffffff80;
/** Below this, a zigzag varint fits 32-bit arithmetic. */
const SMALL = 2 ** 30;

type Headers = { [name: string]: Buffer | string | undefined };

function zigzag(value: number): number {
  return (value << 1) ^ (value >> 31);
}

export function sizeOfVarInt(value: number): number {
  if (value >= SMALL || value <= -SMALL) return sizeOfVarLong(value);
  let encoded = zigzag(value);
  let bytes = 1;
  while ((encoded & VARINT_CONTINUES) !== 0) {
    bytes += 1;
    encoded >>>= 7;
  }
  return bytes;
}

/** Writes a zigzag varint (a varlong for large values); returns the position after it. */
export function writeVarInt(buf: Buffer, at: number, value: number): number {
  if (value >= SMALL || value <= -SMALL) return writeVarLong(buf, at, value);
  let encoded = zigzag(value);
  while ((encoded & VARINT_CONTINUES) !== 0) {
    buf[at++] = (encoded & 0x7f) | 0x80;
    encoded >>>= 7;
  }
  buf[at++] = encoded;
  return at;
}

// Timestamp deltas may pass 2^31 ms (about 25 days): zigzag them with exact Number arithmetic.
function zigzagLong(value: number): number {
  return value >= 0 ? value * 2 : -value * 2 - 1;
}

function sizeOfVarLong(value: number): number {
  let encoded = zigzagLong(value);
  let bytes = 1;
  while (encoded >= 128) {
    bytes += 1;
    encoded = Math.floor(encoded / 128);
  }
  return bytes;
}

function writeVarLong(buf: Buffer, at: number, value: number): number {
  let encoded = zigzagLong(value);
  while (encoded >= 128) {
    buf[at++] = (encoded % 128) | 0x80;
    encoded = Math.floor(encoded / 128);
  }
  buf[at++] = encoded;
  return at;
}

/**
 * A record's bytes after its length varint (Kafka's record format v2): attributes, timestamp and
 * offset deltas, key, value, then `headerBytes` (the header count's varint and the headers).
 */
export function recordBodyBytes(
  timestampDelta: number,
  offsetDelta: number,
  key: Buffer | null | undefined,
  value: Buffer | null | undefined,
  headerBytes: number,
): number {
  const keyLength = key == null ? -1 : key.length;
  const valueLength = value == null ? -1 : value.length;
  return (
    1 +
    sizeOfVarInt(timestampDelta) +
    sizeOfVarInt(offsetDelta) +
    sizeOfVarInt(keyLength) +
    Math.max(keyLength, 0) +
    sizeOfVarInt(valueLength) +
    Math.max(valueLength, 0) +
    headerBytes
  );
}

/** Writes a record up to its headers (see `recordBodyBytes`); returns where the headers go. */
export function writeRecordHead(
  buf: Buffer,
  at: number,
  body: number,
  timestampDelta: number,
  offsetDelta: number,
  key: Buffer | null | undefined,
  value: Buffer | null | undefined,
): number {
  let to = writeVarInt(buf, at, body);
  buf[to++] = 0;
  to = writeVarInt(buf, to, timestampDelta);
  to = writeVarInt(buf, to, offsetDelta);
  to = writeVarInt(buf, to, key == null ? -1 : key.length);
  if (key != null) to += key.copy(buf, to);
  to = writeVarInt(buf, to, value == null ? -1 : value.length);
  if (value != null) to += value.copy(buf, to);
  return to;
}

function headerBytes(value: Buffer | string): Buffer {
  return typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
}

export class OutputBatch {
  /** Records so far; each one's offset delta is its index. */
  count = 0;
  /** The batch's first timestamp: the first record's (later records may have smaller ones). */
  baseTimestamp = 0;
  maxTimestamp = 0;
  /** Whether a record named its partition (a changelog's): the send reports the batch's end offset. */
  explicit = false;
  private buf: Buffer;
  private size = BATCH_HEADER_BYTES;

  constructor(
    readonly topic: string,
    readonly partition: number,
    expectedBytes = 0,
  ) {
    this.buf = Buffer.allocUnsafe(Math.max(INITIAL_BYTES, BATCH_HEADER_BYTES + expectedBytes));
  }

  /** Bytes written, header included. */
  get bytes(): number {
    return this.size;
  }

  append(key: Buffer | null, value: Buffer | null, timestamp: number, headers?: Headers): void {
    if (this.count === 0) {
      this.baseTimestamp = timestamp;
      this.maxTimestamp = timestamp;
    } else if (timestamp > this.maxTimestamp) this.maxTimestamp = timestamp;
    const timestampDelta = timestamp - this.baseTimestamp;
    const offsetDelta = this.count;
    let headerList: Array<[Buffer, Buffer]> | undefined;
    let headersSize = 0;
    if (headers !== undefined) {
      for (const name in headers) {
        const v = headers[name];
        if (v === undefined) continue;
        const k = Buffer.from(name, 'utf8');
        const b = headerBytes(v);
        if (headerList === undefined) headerList = [];
        headerList.push([k, b]);
        headersSize += sizeOfVarInt(k.length) + k.length + sizeOfVarInt(b.length) + b.length;
      }
    }
    const headerCount = headerList?.length ?? 0;
    const body = recordBodyBytes(
      timestampDelta,
      offsetDelta,
      key,
      value,
      sizeOfVarInt(headerCount) + headersSize,
    );
    this.ensure(sizeOfVarInt(body) + body);
    const buf = this.buf;
    let at = writeRecordHead(buf, this.size, body, timestampDelta, offsetDelta, key, value);
    at = writeVarInt(buf, at, headerCount);
    for (const [k, v] of headerList ?? []) {
      at = writeVarInt(buf, at, k.length);
      at += k.copy(buf, at);
      at = writeVarInt(buf, at, v.length);
      at += v.copy(buf, at);
    }
    this.size = at;
    this.count += 1;
  }

  private ensure(more: number): void {
    const needed = this.size + more;
    if (needed <= this.buf.length) return;
    let capacity = this.buf.length * 2;
    while (capacity < needed) capacity *= 2;
    const grown = Buffer.allocUnsafe(capacity);
    this.buf.copy(grown, 0, 0, this.size);
    this.buf = grown;
  }

  /** The batch's bytes, with room for the header in front; valid until the next append. */
  get encoded(): Buffer {
    return this.buf.subarray(0, this.size);
  }
}
