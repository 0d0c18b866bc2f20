// The byte layout of a versioned store inside one byte store (LevelDB or in memory). Kafka
// Streams' RocksDBVersionedStore keeps a latest-value store and segments of older versions; here
// both live in one byte store under one-byte prefixes, so that the task's transactional buffer
// covers every part of a put in one atomic batch:
//   'L' key                  -> the latest version: timestamp, tombstone flag, value
//   'H' key                  -> the older versions, oldest first: timestamp, validTo, value
//   'E' segmentId key        -> (empty) index of the keys by the segment of their latest
//                               timestamp: a segment wholly older than the history retention
//                               lets cleanup drop those keys' histories without a full scan
//   'M'                      -> the store's observed stream time
import { readLong, writeLong } from '../long-bytes.ts';

const LATEST = 0x4c;
const HISTORY = 0x48;
const EXPIRY = 0x45;

export const META_KEY = Buffer.from('M', 'latin1');
export const EXPIRY_PREFIX = Buffer.of(EXPIRY);

/** One version of a key: `value === null` is a tombstone; `validTo` undefined for the latest. */
export interface Version {
  timestamp: number;
  validTo: number;
  value: Buffer | null;
}

export interface Latest {
  timestamp: number;
  value: Buffer | null;
}

function prefixed(prefix: number, key: Buffer): Buffer {
  const out = Buffer.allocUnsafe(1 + key.length);
  out[0] = prefix;
  key.copy(out, 1);
  return out;
}

export const latestKey = (key: Buffer): Buffer => prefixed(LATEST, key);
export const historyKey = (key: Buffer): Buffer => prefixed(HISTORY, key);

export function expiryKey(segmentId: number, key: Buffer): Buffer {
  const out = Buffer.allocUnsafe(9 + key.length);
  out[0] = EXPIRY;
  writeLong(out, segmentId, 1);
  key.copy(out, 9);
  return out;
}

/** The segment id and the user key of an expiry index entry. */
export function parseExpiryKey(bytes: Buffer): { segmentId: number; key: Buffer } {
  return { segmentId: readLong(bytes, 1), key: bytes.subarray(9) };
}

export function encodeLong(value: number): Buffer {
  const out = Buffer.allocUnsafe(8);
  writeLong(out, value, 0);
  return out;
}

export function decodeLong(bytes: Buffer): number {
  return readLong(bytes, 0);
}

export function encodeLatest(latest: Latest): Buffer {
  const value = latest.value;
  const out = Buffer.allocUnsafe(9 + (value?.length ?? 0));
  writeLong(out, latest.timestamp, 0);
  out[8] = value === null ? 1 : 0;
  value?.copy(out, 9);
  return out;
}

export function decodeLatest(bytes: Buffer): Latest {
  return { timestamp: readLong(bytes, 0), value: bytes[8] === 1 ? null : bytes.subarray(9) };
}

/** Per version: timestamp (8), validTo (8), value length (4, -1 for a tombstone), value bytes. */
export function encodeHistory(versions: readonly Version[]): Buffer {
  let size = 0;
  for (const v of versions) size += 20 + (v.value?.length ?? 0);
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (const v of versions) {
    writeLong(out, v.timestamp, at);
    writeLong(out, v.validTo, at + 8);
    out.writeInt32BE(v.value === null ? -1 : v.value.length, at + 16);
    at += 20;
    if (v.value !== null) at += v.value.copy(out, at);
  }
  return out;
}

export function decodeHistory(bytes: Buffer | undefined): Version[] {
  const versions: Version[] = [];
  if (bytes === undefined) return versions;
  let at = 0;
  while (at < bytes.length) {
    const length = bytes.readInt32BE(at + 16);
    const start = at + 20;
    versions.push({
      timestamp: readLong(bytes, at),
      validTo: readLong(bytes, at + 8),
      value: length < 0 ? null : bytes.subarray(start, start + length),
    });
    at = start + Math.max(length, 0);
  }
  return versions;
}

/** The validTo of a history's oldest version (its bytes are not empty). */
export function oldestValidTo(bytes: Buffer): number {
  return readLong(bytes, 8);
}

/** The version of a history valid at `asOf`, read in place (no other version is decoded). */
export function findVersion(bytes: Buffer | undefined, asOf: number): Version | undefined {
  if (bytes === undefined) return undefined;
  let at = 0;
  while (at < bytes.length) {
    const length = bytes.readInt32BE(at + 16);
    const start = at + 20;
    const timestamp = readLong(bytes, at);
    if (timestamp > asOf) return undefined;
    const validTo = readLong(bytes, at + 8);
    if (asOf < validTo) {
      return { timestamp, validTo, value: length < 0 ? null : bytes.subarray(start, start + length) };
    }
    at = start + Math.max(length, 0);
  }
  return undefined;
}

/**
 * A changelog record of a versioned store, as the restore hands it to the store's restore target:
 * the record's timestamp and a tombstone flag in front of the value (the changelog itself holds
 * the plain value and the timestamp as the record's, Kafka Streams' format).
 */
export const encodeRestoreValue = (timestamp: number, value: Buffer | null): Buffer =>
  encodeLatest({ timestamp, value });
export const decodeRestoreValue = decodeLatest;
