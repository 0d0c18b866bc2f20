// kafkajs 2.2.4 decodes each fetched record through a Buffer slice and a Decoder of its own, parses
// the batch's first offset and first timestamp from strings into Long objects twice per record,
// reads the timestamp delta as a Long, and builds the headers with an object spread per header.
// In the word-count benchmark that was about 4% of the app's CPU, and the garbage was much of what
// the collector had to promote: records wait in a fetch response for hundreds of milliseconds.
//
// This installs, before kafkajs loads (like produce-encoding.ts), a record batch decoder that reads
// the records straight from the batch's bytes with plain numbers, and returns what kafkajs' returns:
// the same batch fields and, per record, the same message object (offset and timestamp as decimal
// strings, key and value as slices of the response, a fresh headers object, the batch context).
// Numbers that do not fit a double exactly (offsets or timestamps past 2^53) are computed with
// BigInt. A unit test compares both decoders' output for the same batches.
import {
  installModule,
  loadedExports,
  requireFromCore as require,
  resolveKafkajsModule,
} from './kafkajs-modules.ts';

const TIMESTAMP_TYPE_FLAG_MASK = 0x8;
const TRANSACTIONAL_FLAG_MASK = 0x10;
const CONTROL_FLAG_MASK = 0x20;
/** kafkajs' TimestampTypes.LOG_APPEND_TIME. */
const LOG_APPEND_TIME = 1;
const CREATE_TIME = 0;

interface KafkajsDecoder {
  buffer: Buffer;
  offset: number;
  readInt8(): number;
  readInt16(): number;
  readInt32(): number;
  readInt64(): { toString(): string };
  readAll(): Buffer;
  slice(size: number): KafkajsDecoder;
  forward(size: number): void;
}

interface Codec {
  decompress(buffer: Buffer): Promise<Buffer>;
}

interface Kafkajs {
  PartialMessageError: new (message: string) => Error;
  lookupCodecByAttributes(attributes: number): Codec | undefined;
}

interface BatchContext {
  firstOffset: string;
  firstTimestamp: string;
  partitionLeaderEpoch: number;
  inTransaction: boolean;
  isControlBatch: boolean;
  lastOffsetDelta: number;
  producerId: string;
  producerEpoch: number;
  firstSequence: number;
  maxTimestamp: string;
  timestampType: number;
}

type Headers = Record<string, Buffer | null | Array<Buffer | null>>;

/** A fetched record, as kafkajs' record decoder returns it. */
export interface DecodedRecord {
  readonly magicByte: number;
  readonly attributes: number;
  readonly timestamp: string;
  readonly offset: string;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: Headers;
  readonly isControlRecord: boolean;
  readonly batchContext: RecordContext;
}

type RecordContext = BatchContext & { magicByte: number };

/** Kafka's zigzag varints, read from `buf` at `pos` onwards. */
class VarIntReader {
  constructor(
    protected readonly buf: Buffer,
    public pos: number,
  ) {}

  bytes(): Buffer | null {
    const size = this.varInt();
    if (size === -1) return null;
    const start = this.pos;
    this.pos += size;
    return this.buf.subarray(start, this.pos);
  }

  /** A zigzag varint of at most 32 bits, read as kafkajs reads it. */
  varInt(): number {
    const { buf } = this;
    let result = 0;
    let shift = 0;
    let byte: number;
    do {
      byte = buf[this.pos++]!;
      result += (byte & 0x7f) << shift;
      shift += 7;
    } while (byte >= 0x80);
    return (result >>> 1) ^ -(result & 1);
  }

  /** A zigzag varlong: a number when it fits a double exactly, else a bigint. */
  varLong(): number | bigint {
    const { buf } = this;
    const start = this.pos;
    let result = 0;
    let scale = 1;
    let byte: number;
    do {
      byte = buf[this.pos++]!;
      result += (byte & 0x7f) * scale;
      scale *= 128;
    } while (byte >= 0x80 && scale < 2 ** 49);
    if (byte < 0x80) return result % 2 === 0 ? result / 2 : -(result + 1) / 2;
    // More than 7 bytes: past what a double holds exactly.
    this.pos = start;
    let big = 0n;
    let bigShift = 0n;
    do {
      byte = buf[this.pos++]!;
      big |= BigInt(byte & 0x7f) << bigShift;
      bigShift += 7n;
    } while (byte >= 0x80 && bigShift < 70n);
    big = BigInt.asUintN(64, big);
    return BigInt.asIntN(64, (big >> 1n) ^ -(big & 1n));
  }
}

/**
 * A fetched record that keeps positions in its batch's bytes and makes its key, value, headers,
 * offset and timestamp when they are read. A whole fetch response is decoded at once and waits
 * while its batches are processed one after another (long enough to be promoted); kafkajs' shape,
 * two Buffer views, a headers object and two strings per record, was a third of the stream
 * thread's live heap in the word-count benchmark and, through V8's heap growth, of its peak RSS.
 * Records before the task's position (after a rejoin) are never materialised.
 */
class FetchedRecord implements DecodedRecord {
  private parsedHeaders?: Headers;

  constructor(
    private readonly buf: Buffer,
    readonly batchContext: RecordContext,
    readonly attributes: number,
    /** A number when it is exact as a double, else the decimal string. */
    private offsetValue: number | string,
    private timestampValue: number | string,
    /** -1 for a null key. */
    private readonly keyStart: number,
    private readonly keyEnd: number,
    /** -1 for a null value. */
    private readonly valueStart: number,
    /** Where the value ends and the headers begin. */
    private readonly valueEnd: number,
  ) {}

  get magicByte(): number {
    return this.batchContext.magicByte;
  }

  set magicByte(value: number) {
    assign(this, 'magicByte', value);
  }

  get isControlRecord(): boolean {
    return this.batchContext.isControlBatch;
  }

  set isControlRecord(value: boolean) {
    assign(this, 'isControlRecord', value);
  }

  get offset(): string {
    return String(this.offsetValue);
  }

  set offset(value: string) {
    this.offsetValue = value;
  }

  get timestamp(): string {
    return String(this.timestampValue);
  }

  set timestamp(value: string) {
    this.timestampValue = value;
  }

  get offsetNumber(): number {
    return typeof this.offsetValue === 'number' ? this.offsetValue : Number(this.offsetValue);
  }

  get timestampNumber(): number {
    return typeof this.timestampValue === 'number' ? this.timestampValue : Number(this.timestampValue);
  }

  /** kafkajs' plain shape, so that a logged or serialized message shows its fields. */
  toJSON(): DecodedRecord {
    const { magicByte, attributes, timestamp, offset, key, value, headers, isControlRecord, batchContext } =
      this;
    return { magicByte, attributes, timestamp, offset, key, value, headers, isControlRecord, batchContext };
  }

  get key(): Buffer | null {
    return this.keyStart < 0 ? null : this.buf.subarray(this.keyStart, this.keyEnd);
  }

  set key(value: Buffer | null) {
    assign(this, 'key', value);
  }

  get value(): Buffer | null {
    return this.valueStart < 0 ? null : this.buf.subarray(this.valueStart, this.valueEnd);
  }

  set value(value: Buffer | null) {
    assign(this, 'value', value);
  }

  /**
   * As kafkajs: a fresh object per record, repeated names gathered in arrays. Kept once read when
   * there are headers; the usual none (a zero count byte) costs a short-lived empty object, as the
   * runtime asks every record.
   */
  get headers(): Headers {
    if (this.parsedHeaders !== undefined) return this.parsedHeaders;
    if (this.buf[this.valueEnd] === 0) return {};
    this.parsedHeaders = readHeaders(this.buf, this.valueEnd);
    return this.parsedHeaders;
  }

  set headers(value: Headers) {
    assign(this, 'headers', value);
  }
}

/**
 * An assignment makes the field a plain own property from then on, as on kafkajs' objects: the
 * read_committed correction marks records of aborted transactions as control records, and
 * user code may set fields too.
 */
function assign(record: FetchedRecord, name: string, value: unknown): void {
  Object.defineProperty(record, name, { value, writable: true, enumerable: true, configurable: true });
}

/** A fetched message's offset as a number, without its decimal string when it is one of ours. */
export function fetchedOffset(message: { readonly offset: string }): number {
  return message instanceof FetchedRecord ? message.offsetNumber : Number(message.offset);
}

/** A fetched message's timestamp as a number, as `fetchedOffset`. */
export function fetchedTimestamp(message: { readonly timestamp: string }): number {
  return message instanceof FetchedRecord ? message.timestampNumber : Number(message.timestamp);
}

/** Reads the records of one batch from `buf`, starting at `pos`. */
class RecordReader extends VarIntReader {
  private readonly firstOffset: number;
  private readonly firstTimestamp: number;

  constructor(
    buf: Buffer,
    pos: number,
    private readonly context: RecordContext,
  ) {
    super(buf, pos);
    this.firstOffset = Number(context.firstOffset);
    this.firstTimestamp = Number(context.firstTimestamp);
  }

  read(count: number): DecodedRecord[] {
    const records = new Array<DecodedRecord>(count);
    for (let i = 0; i < count; i++) records[i] = this.record();
    return records;
  }

  private record(): DecodedRecord {
    const length = this.varInt();
    // kafkajs reads each record inside a slice of its stated length.
    const end = this.pos + length;
    const { buf, context } = this;
    const attributes = buf.readInt8(this.pos++);
    const timestampDelta = this.varLong();
    const timestamp =
      context.timestampType === LOG_APPEND_TIME && context.maxTimestamp
        ? context.maxTimestamp
        : sum(this.firstTimestamp, context.firstTimestamp, timestampDelta);
    const offset = sum(this.firstOffset, context.firstOffset, this.varInt());
    const keySize = this.varInt();
    const keyStart = this.pos;
    if (keySize > 0) this.pos += keySize;
    const valueSize = this.varInt();
    const valueStart = this.pos;
    if (valueSize > 0) this.pos += valueSize;
    const record = new FetchedRecord(
      buf,
      context,
      attributes,
      offset,
      timestamp,
      keySize === -1 ? -1 : keyStart,
      keyStart + Math.max(keySize, 0),
      valueSize === -1 ? -1 : valueStart,
      this.pos,
    );
    this.pos = end;
    return record;
  }
}

/** The headers that start at `pos` (their count first), as kafkajs builds them. */
function readHeaders(buf: Buffer, pos: number): Headers {
  const reader = new VarIntReader(buf, pos);
  const headers: Headers = {};
  const headerCount = reader.varInt();
  for (let h = 0; h < headerCount; h++) {
    const size = reader.varInt();
    const name = size === -1 ? 'null' : buf.toString('utf8', reader.pos, reader.pos + size);
    if (size > 0) reader.pos += size;
    const headerValue = reader.bytes();
    // As kafkajs: read through the prototype (a header named "constructor" meets Object's), and
    // write an own property, also for "__proto__", as its object literal does.
    const before = headers[name];
    Object.defineProperty(headers, name, {
      value:
        before === undefined
          ? headerValue
          : Array.isArray(before)
            ? [...before, headerValue]
            : [before, headerValue],
      writable: true,
      enumerable: true,
      configurable: true,
    });
  }
  return headers;
}

/** `base + delta`: a number when exact as a double, else the decimal string; `text` is `base` exactly. */
function sum(base: number, text: string, delta: number | bigint): number | string {
  if (typeof delta === 'number' && Number.isSafeInteger(base)) {
    const total = base + delta;
    if (Number.isSafeInteger(total)) return total;
  }
  return String(BigInt.asIntN(64, BigInt(text) + BigInt(delta)));
}

/** kafkajs' recordBatch/v0/decoder, reading records without per-record decoders and Longs. */
export function recordBatchDecoder(kafkajs: Kafkajs) {
  return async (fetchDecoder: KafkajsDecoder) => {
    const firstOffset = fetchDecoder.readInt64().toString();
    const length = fetchDecoder.readInt32();
    const decoder = fetchDecoder.slice(length);
    fetchDecoder.forward(length);
    const remainingBytes = Buffer.byteLength(decoder.buffer);
    if (remainingBytes < length) {
      throw new kafkajs.PartialMessageError(
        `Tried to decode a partial record batch: remainingBytes(${remainingBytes}) < recordBatchLength(${length})`,
      );
    }
    const partitionLeaderEpoch = decoder.readInt32();
    const magicByte = decoder.readInt8();
    decoder.readInt32(); // CRC: kafkajs does not check it either
    const attributes = decoder.readInt16();
    const lastOffsetDelta = decoder.readInt32();
    const firstTimestamp = decoder.readInt64().toString();
    const maxTimestamp = decoder.readInt64().toString();
    const producerId = decoder.readInt64().toString();
    const producerEpoch = decoder.readInt16();
    const firstSequence = decoder.readInt32();
    const recordContext: BatchContext = {
      firstOffset,
      firstTimestamp,
      partitionLeaderEpoch,
      inTransaction: (attributes & TRANSACTIONAL_FLAG_MASK) > 0,
      isControlBatch: (attributes & CONTROL_FLAG_MASK) > 0,
      lastOffsetDelta,
      producerId,
      producerEpoch,
      firstSequence,
      maxTimestamp,
      timestampType: (attributes & TIMESTAMP_TYPE_FLAG_MASK) > 0 ? LOG_APPEND_TIME : CREATE_TIME,
    };
    const context = { ...recordContext, magicByte };
    const codec = kafkajs.lookupCodecByAttributes(attributes);
    const count = decoder.readInt32();
    let records: DecodedRecord[];
    if (!codec) {
      records = count === -1 ? [] : new RecordReader(decoder.buffer, decoder.offset, context).read(count);
    } else if (count <= 0) {
      records = [];
    } else {
      const decompressed = await codec.decompress(decoder.readAll());
      records = new RecordReader(decompressed, 0, context).read(count);
    }
    return { ...recordContext, records };
  };
}

let installed = false;

function install(): void {
  const decoderPath = resolveKafkajsModule('kafkajs/src/protocol/recordBatch/v0/decoder.js');
  if (decoderPath === undefined) return;
  // Loaded already (kafkajs came before @kstreams/core, or a bundle): keep kafkajs' own.
  const loaded = loadedExports(decoderPath);
  if (loaded !== undefined) {
    installed = (loaded as { kstreams?: boolean }).kstreams === true;
    return;
  }
  const { KafkaJSPartialMessageError } = require('kafkajs/src/errors.js');
  const { lookupCodecByAttributes } = require('kafkajs/src/protocol/message/compression/index.js');
  const decode = Object.assign(
    recordBatchDecoder({ PartialMessageError: KafkaJSPartialMessageError, lookupCodecByAttributes }),
    { kstreams: true },
  );
  installModule(decoderPath, decode);
  installed = true;
}

install();

/** Whether kafkajs' consumers in this process use the decoder above. */
export const fetchDecodingInstalled = () => installed;
