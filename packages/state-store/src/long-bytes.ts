// Kafka's int64 fields (timestamps, window starts) for JavaScript numbers.
const TWO_32 = 2 ** 32;

/**
 * Writes `value` as a big-endian int64 at `at`: two 32-bit halves, exact for every safe integer,
 * negatives included, and cheaper than a BigInt.
 */
export function writeLong(target: Buffer, value: number, at: number): void {
  const high = Math.floor(value / TWO_32);
  target.writeInt32BE(high, at);
  target.writeUInt32BE(value - high * TWO_32, at + 4);
}

/** Reads a big-endian int64 at `at` as a number (exact while it is a safe integer). */
export function readLong(source: Buffer, at: number): number {
  return source.readInt32BE(at) * TWO_32 + source.readUInt32BE(at + 4);
}
