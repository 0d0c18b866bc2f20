// Reads the records of an OutputBatch back (the inverse of its append). Only for a send that
// failed: the production exception handler is asked per record, and a batch the broker refused as
// too large is sent again record by record, as Java's producer splits such a batch.
import { BATCH_HEADER_BYTES, type OutputBatch } from './output-batch.ts';
import type { OutputRecord } from './records.ts';

class Reader {
  constructor(
    private readonly buf: Buffer,
    public at: number,
  ) {}

  /** A zigzag varint or varlong, with exact Number arithmetic (timestamp deltas pass 2^31). */
  varint(): number {
    let unsigned = 0;
    let scale = 1;
    for (;;) {
      const byte = this.buf[this.at++]!;
      unsigned += (byte & 0x7f) * scale;
      if ((byte & 0x80) === 0) break;
      scale *= 128;
    }
    return unsigned % 2 === 0 ? unsigned / 2 : -(unsigned + 1) / 2;
  }

  bytes(): Buffer | null {
    const length = this.varint();
    if (length < 0) return null;
    const b = Buffer.from(this.buf.subarray(this.at, this.at + length));
    this.at += length;
    return b;
  }
}

/** The batch's records, each with the batch's topic and partition. */
export function outputBatchRecords(batch: OutputBatch): OutputRecord[] {
  const encoded = batch.encoded;
  const reader = new Reader(encoded, BATCH_HEADER_BYTES);
  const records: OutputRecord[] = [];
  for (let i = 0; i < batch.count; i++) {
    const length = reader.varint();
    const end = reader.at + length;
    reader.at += 1; // attributes
    const timestamp = batch.baseTimestamp + reader.varint();
    reader.varint(); // offset delta: the record's index
    const key = reader.bytes();
    const value = reader.bytes();
    const headerCount = reader.varint();
    let headers: { [name: string]: Buffer } | undefined;
    for (let h = 0; h < headerCount; h++) {
      const name = reader.bytes()?.toString('utf8') ?? '';
      headers ??= {};
      headers[name] = reader.bytes() ?? Buffer.alloc(0);
    }
    reader.at = end;
    records.push({
      topic: batch.topic,
      partition: batch.partition,
      key,
      value,
      timestamp,
      ...(headers === undefined ? {} : { headers }),
    });
  }
  return records;
}
