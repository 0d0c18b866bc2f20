import { StreamsError } from '../errors.ts';

/** Record headers, as the processor's Record has them (the state folder does not import processor/). */
type Headers = { [name: string]: Buffer | string | undefined };

/** Where a buffered record came from, kept so that its emission carries its timestamp and headers. */
export interface BufferedRecordContext {
  readonly timestamp: number;
  readonly offset: number;
  readonly topic: string;
  readonly partition: number;
  readonly headers: Headers;
}

/**
 * One key's entry in the suppression buffer (Kafka Streams' BufferValue): the value before the
 * first buffered update (`priorValue`), the old and new value of the latest update, and the
 * latest update's record context. All values are serialized bytes.
 */
export interface BufferValue {
  readonly priorValue: Buffer | null;
  readonly oldValue: Buffer | null;
  readonly newValue: Buffer | null;
  readonly context: BufferedRecordContext;
}

const NULL_VALUE = -1;
const OLD_IS_PRIOR = -2;

function same(a: Buffer | null, b: Buffer | null): boolean {
  return a === b || (a !== null && b !== null && a.equals(b));
}

function headerEntries(headers: Headers): [Buffer, Buffer][] {
  const out: [Buffer, Buffer][] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out.push([Buffer.from(name, 'utf8'), typeof value === 'string' ? Buffer.from(value, 'utf8') : value]);
  }
  return out;
}

/** Writes into one buffer allocated for the whole value (this runs for every buffered update). */
class Writer {
  private at = 0;
  private readonly out: Buffer;
  constructor(size: number) {
    this.out = Buffer.allocUnsafe(size);
  }
  int(n: number): void {
    this.at = this.out.writeInt32BE(n, this.at);
  }
  long(n: number): void {
    this.at = this.out.writeBigInt64BE(BigInt(n), this.at);
  }
  bytes(b: Buffer): void {
    this.at += b.copy(this.out, this.at);
  }
  sized(b: Buffer | null): void {
    if (b === null) this.int(NULL_VALUE);
    else {
      this.int(b.length);
      this.bytes(b);
    }
  }
  done(): Buffer {
    if (this.at !== this.out.length)
      throw new StreamsError(`Suppression buffer value: wrote ${this.at} of ${this.out.length} bytes`);
    return this.out;
  }
}

class Reader {
  private at = 0;
  constructor(private readonly data: Buffer) {}
  private need(n: number): void {
    if (this.at + n > this.data.length)
      throw new StreamsError(
        `Suppression buffer entry is cut short (${this.data.length} bytes): not Kafka Streams' v3 changelog format`,
      );
  }
  int(): number {
    this.need(4);
    const n = this.data.readInt32BE(this.at);
    this.at += 4;
    return n;
  }
  long(): number {
    this.need(8);
    const n = Number(this.data.readBigInt64BE(this.at));
    this.at += 8;
    return n;
  }
  bytes(n: number): Buffer {
    this.need(n);
    const b = this.data.subarray(this.at, this.at + n);
    this.at += n;
    return b;
  }
  sized(length = this.int()): Buffer | null {
    return length === NULL_VALUE ? null : this.bytes(length);
  }
}

/**
 * Kafka Streams' v3 suppression changelog value, which is also how the buffer store keeps an entry:
 * record context (timestamp, offset, topic, partition, headers), prior, old and new value (each
 * length-prefixed, -1 for null; the old value -2 when it equals the prior), then the buffer time.
 */
export function encodeBufferValue(value: BufferValue, bufferTime: number): Buffer {
  const { context, priorValue, oldValue, newValue } = value;
  const topic = Buffer.from(context.topic, 'utf8');
  const headers = headerEntries(context.headers);
  const oldIsPrior = oldValue === null || same(priorValue, oldValue);
  let size = 8 + 8 + 4 + topic.length + 4 + 4 + 4 * 3 + 8;
  for (const [name, headerValue] of headers) size += 8 + name.length + headerValue.length;
  size += (priorValue?.length ?? 0) + (oldIsPrior ? 0 : oldValue.length) + (newValue?.length ?? 0);
  const w = new Writer(size);
  w.long(context.timestamp);
  w.long(context.offset);
  w.int(topic.length);
  w.bytes(topic);
  w.int(context.partition);
  w.int(headers.length);
  for (const [name, headerValue] of headers) {
    w.int(name.length);
    w.bytes(name);
    w.sized(headerValue);
  }
  w.sized(priorValue);
  if (oldValue === null) w.int(NULL_VALUE);
  else if (oldIsPrior) w.int(OLD_IS_PRIOR);
  else w.sized(oldValue);
  w.sized(newValue);
  w.long(bufferTime);
  return w.done();
}

export function decodeBufferValue(data: Buffer): { value: BufferValue; bufferTime: number } {
  const r = new Reader(data);
  const timestamp = r.long();
  const offset = r.long();
  const topic = r.bytes(r.int()).toString('utf8');
  const partition = r.int();
  const headers: Headers = {};
  const count = r.int();
  for (let i = 0; i < count; i++) {
    const name = r.bytes(r.int()).toString('utf8');
    const headerValue = r.sized();
    if (headerValue !== null) headers[name] = Buffer.from(headerValue);
  }
  const priorValue = r.sized();
  const oldLength = r.int();
  const oldValue = oldLength === OLD_IS_PRIOR ? priorValue : r.sized(oldLength);
  const newValue = r.sized();
  const bufferTime = r.long();
  return {
    value: { priorValue, oldValue, newValue, context: { timestamp, offset, topic, partition, headers } },
    bufferTime,
  };
}

/**
 * Kafka Streams' estimate of an entry's memory, which `BufferConfig.maxBytes` bounds: buffer time,
 * key, the distinct values, and the record context (two longs, topic, partition, headers).
 */
export function residentSizeEstimate(keyLength: number, value: BufferValue): number {
  const { priorValue, oldValue, newValue, context } = value;
  let size = 8 + keyLength;
  size += priorValue?.length ?? 0;
  size += oldValue === null || same(priorValue, oldValue) ? 0 : oldValue.length;
  size += newValue?.length ?? 0;
  size += 8 + 8 + context.topic.length + 4;
  for (const [name, headerValue] of headerEntries(context.headers)) {
    size += name.toString('utf8').length + headerValue.length;
  }
  return size;
}
