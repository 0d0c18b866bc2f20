// The byte layouts of Kafka Streams' window and session stores, which are also the keys of their
// changelog topics, so that a Java application or tool reads ours (and a restore is a plain copy).
import { readLong, writeLong } from '../long-bytes.ts';

const TIMESTAMP_SIZE = 8;
const SEQNUM_SIZE = 4;

/**
 * Kafka Streams' WindowKeySchema: a window store key is `[key][window start: int64][seqnum: int32]`
 * (big-endian); the seqnum is 0 unless the store keeps duplicates (a stream-stream join's).
 * Within one key the entries sort by window start, which is what fetch(key, from, to) scans.
 */
export const WindowKeySchema = {
  SUFFIX_SIZE: TIMESTAMP_SIZE + SEQNUM_SIZE,

  toStoreKey(key: Buffer, windowStart: number, seqnum = 0): Buffer {
    const out = Buffer.allocUnsafe(key.length + TIMESTAMP_SIZE + SEQNUM_SIZE);
    key.copy(out, 0);
    writeLong(out, windowStart, key.length);
    out.writeInt32BE(seqnum, key.length + TIMESTAMP_SIZE);
    return out;
  },

  keyOf(storeKey: Buffer): Buffer {
    return storeKey.subarray(0, storeKey.length - TIMESTAMP_SIZE - SEQNUM_SIZE);
  },

  windowStartOf(storeKey: Buffer): number {
    return readLong(storeKey, storeKey.length - TIMESTAMP_SIZE - SEQNUM_SIZE);
  },

  seqnumOf(storeKey: Buffer): number {
    return storeKey.readInt32BE(storeKey.length - SEQNUM_SIZE);
  },

  /** Bounds of a scan over one key's windows starting in [from, to]. */
  lowerBound(key: Buffer, from: number): Buffer {
    return WindowKeySchema.toStoreKey(key, Math.max(0, from), 0);
  },
  upperBound(key: Buffer, to: number): Buffer {
    return WindowKeySchema.toStoreKey(key, to, 0x7fffffff);
  },

  /** Java's TimeWindowedSerializer: `[key][window start: int64]` (the window end follows from the size). */
  toWindowedKey(key: Buffer, windowStart: number): Buffer {
    const out = Buffer.allocUnsafe(key.length + TIMESTAMP_SIZE);
    key.copy(out, 0);
    writeLong(out, windowStart, key.length);
    return out;
  },

  fromWindowedKey(bytes: Buffer): { key: Buffer; windowStart: number } {
    const at = bytes.length - TIMESTAMP_SIZE;
    return { key: bytes.subarray(0, at), windowStart: readLong(bytes, at) };
  },
} as const;

/**
 * Kafka Streams' SessionKeySchema: `[key][session end: int64][session start: int64]`, both in the
 * session store and as Java's SessionWindowedSerializer writes a windowed key.
 */
export const SessionKeySchema = {
  SUFFIX_SIZE: 2 * TIMESTAMP_SIZE,

  toBinary(key: Buffer, start: number, end: number): Buffer {
    const out = Buffer.allocUnsafe(key.length + 2 * TIMESTAMP_SIZE);
    key.copy(out, 0);
    writeLong(out, end, key.length);
    writeLong(out, start, key.length + TIMESTAMP_SIZE);
    return out;
  },

  fromBinary(bytes: Buffer): { key: Buffer; start: number; end: number } {
    const at = bytes.length - 2 * TIMESTAMP_SIZE;
    return {
      key: bytes.subarray(0, at),
      end: readLong(bytes, at),
      start: readLong(bytes, at + TIMESTAMP_SIZE),
    };
  },
} as const;
