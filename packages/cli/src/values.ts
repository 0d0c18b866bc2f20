// How a record's value bytes become the number or text that verify compares. Kafka Streams'
// count() writes 8-byte big-endian longs (Serdes.Long()); other apps write decimal text.

export type ValueFormat = 'auto' | 'long' | 'string';

export const VALUE_FORMATS: readonly ValueFormat[] = ['auto', 'long', 'string'];

const DECIMAL = /^-?\d+$/;

/** A decoded value: a number when it is one (a long, or decimal text), else the text. */
export type Value = number | string;

export function decodeValue(bytes: Buffer | null, format: ValueFormat = 'auto'): Value | null {
  if (bytes === null) return null;
  if (format === 'long') {
    if (bytes.length !== 8)
      throw new Error(
        `a value of ${bytes.length} bytes is not an 8-byte long; use --value-format string for text values`,
      );
    return Number(bytes.readBigInt64BE(0));
  }
  const text = bytes.toString('utf8');
  if (format === 'string') return DECIMAL.test(text.trim()) ? Number(text.trim()) : text;
  // auto: eight bytes that are not decimal text are a long (a count of 8 ASCII digits stays text).
  if (bytes.length === 8 && !DECIMAL.test(text)) return Number(bytes.readBigInt64BE(0));
  return DECIMAL.test(text.trim()) ? Number(text.trim()) : text;
}
