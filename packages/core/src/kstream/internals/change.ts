import { SerdeError } from '../../errors.ts';
import type { AnySerde } from '../../processor/internals/internal-topology-builder.ts';

/**
 * What KTable processors forward: the new value and the one it replaced (null: none, or deleted).
 * The old value lets a downstream `KGroupedTable` aggregation subtract the old contribution.
 * `isLatest` is false for an out-of-order update of a versioned table (KIP-914): it went into the
 * table's history, and re-groupings and table-table joins skip it, as in Kafka Streams.
 */
export class Change<V> {
  constructor(
    readonly newValue: V | null,
    readonly oldValue: V | null,
    readonly isLatest = true,
  ) {}
}

const HAS_NEW = 1;
const HAS_OLD = 2;

/**
 * Carries a Change through a repartition topic: a flag byte (1 = new value, 2 = old value), then
 * the value bytes; with both, a 4-byte length of the new value comes first.
 */
export function changeSerde(inner: AnySerde): AnySerde {
  const serde: AnySerde = {
    serialize(data, topic) {
      const change = data as Change<unknown>;
      const hasNew = change.newValue !== null && change.newValue !== undefined;
      const hasOld = change.oldValue !== null && change.oldValue !== undefined;
      const newBytes = hasNew ? inner.serialize(change.newValue, topic) : undefined;
      const oldBytes = hasOld ? inner.serialize(change.oldValue, topic) : undefined;
      if (newBytes !== undefined && oldBytes !== undefined) {
        const header = Buffer.allocUnsafe(5);
        header.writeUInt8(HAS_NEW | HAS_OLD, 0);
        header.writeUInt32BE(newBytes.length, 1);
        return Buffer.concat([header, newBytes, oldBytes]);
      }
      const flag = Buffer.of(newBytes !== undefined ? HAS_NEW : oldBytes !== undefined ? HAS_OLD : 0);
      return Buffer.concat([flag, newBytes ?? oldBytes ?? Buffer.alloc(0)]);
    },
    deserialize(data, topic) {
      const flags = data[0];
      if (flags === HAS_NEW) return new Change(inner.deserialize(data.subarray(1), topic), null);
      if (flags === HAS_OLD) return new Change(null, inner.deserialize(data.subarray(1), topic));
      if (flags === (HAS_NEW | HAS_OLD) && data.length >= 5) {
        const newLength = data.readUInt32BE(1);
        return new Change(
          inner.deserialize(data.subarray(5, 5 + newLength), topic),
          inner.deserialize(data.subarray(5 + newLength), topic),
        );
      }
      throw new SerdeError(`Not a KTable change record (flag byte ${String(flags)})`);
    },
  };
  // A registry serde's prepare sees each value's own bytes, as its deserialize does.
  if (inner.prepare !== undefined) serde.prepare = (data, topic) => prepareChange(inner, data, topic);
  return serde;
}

function prepareChange(inner: AnySerde, data: Buffer, topic: string | undefined): Promise<void> | undefined {
  const flags = data[0];
  const parts =
    flags === (HAS_NEW | HAS_OLD) && data.length >= 5
      ? [data.subarray(5, 5 + data.readUInt32BE(1)), data.subarray(5 + data.readUInt32BE(1))]
      : [data.subarray(1)];
  const pending = parts.map((p) => inner.prepare?.(p, topic)).filter((p) => p !== undefined);
  return pending.length === 0 ? undefined : Promise.all(pending).then(() => undefined);
}
