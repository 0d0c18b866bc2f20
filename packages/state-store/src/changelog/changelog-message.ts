import { InvalidChangelogRecordError } from '../errors.ts';
import type { ChangelogRecord } from '../types.ts';

/**
 * The one changelog encoding, shared by the writer and the restorer: the Kafka record key is the
 * store key's bytes, the Kafka record value is the store value's bytes, and a null value (a
 * tombstone, which compaction eventually removes) is a delete — the same layout as Kafka Streams'
 * key-value store changelogs.
 *
 * Window and session stores (a later issue) will reuse this encoding with segmented keys: the
 * store key bytes followed by a fixed-width big-endian timestamp suffix (and a sequence number
 * for windows), so that byte order groups a key's windows by time.
 */
export function toChangelogMessage(record: ChangelogRecord): { key: Buffer; value: Buffer | null } {
  if (!Buffer.isBuffer(record?.key)) {
    throw new InvalidChangelogRecordError(
      'Changelog record key must be a Buffer: serialize the store key first.',
    );
  }
  if (record.value !== null && !Buffer.isBuffer(record.value)) {
    throw new InvalidChangelogRecordError(
      'Changelog record value must be a Buffer, or null for a delete (tombstone): serialize the value first.',
    );
  }
  return { key: record.key, value: record.value };
}

export function fromChangelogMessage(message: { key: Buffer | null; value: Buffer | null }): ChangelogRecord {
  if (message.key === null || message.key === undefined) {
    throw new InvalidChangelogRecordError(
      'Changelog message has a null key, so it cannot be restored into a key-value store. Changelog topics ' +
        'must be written only by kstreams; check that nothing else produces to this topic.',
    );
  }
  const value = message.value ?? null;
  return { key: toBuffer(message.key), value: value === null ? null : toBuffer(value) };
}

// Kafka clients hand out Buffers, but a Uint8Array view costs nothing to accept.
function toBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
