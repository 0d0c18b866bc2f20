// KStream.join / leftJoin / outerJoin take a KTable, a GlobalKTable or a KStream: the argument
// lists differ by what is joined, so they are told apart here, by the first argument's class.
import { TopologyError } from '../../errors.ts';
import { GlobalKTable } from '../global-ktable.ts';
import { JoinWindows } from '../join-windows.ts';
import { KStream } from '../kstream.ts';
import type { KTable } from '../ktable.ts';
import type { Joined, Named, StreamJoined } from '../options.ts';
import { type JoinSides, streamStreamJoin } from './stream-stream-join.ts';
import { globalTableJoin, streamTableJoin } from './stream-table-join.ts';
import type { ValueJoinerWithKey } from './value-joiner.ts';

type AnyJoiner = ValueJoinerWithKey<unknown, unknown, unknown, unknown>;

export function dispatchJoin<K, V>(
  stream: KStream<K, V>,
  other: KTable<K, unknown> | GlobalKTable<unknown, unknown> | KStream<K, unknown>,
  [first, second, third]: unknown[],
  sides: JoinSides,
): KStream<K, unknown> {
  if (other instanceof KStream) {
    const options = third as StreamJoined<K, V, unknown> | undefined;
    return streamStreamJoin(stream, other, first as AnyJoiner, second as JoinWindows, options ?? {}, sides);
  }
  if (sides.rightOuter) {
    throw new TopologyError(`KStream.outerJoin joins two streams: pass a KStream, not ${describe(other)}`);
  }
  if (other instanceof GlobalKTable) {
    type Selector = (key: K, value: V) => unknown;
    return globalTableJoin(
      stream,
      other,
      first as Selector,
      second as AnyJoiner,
      third as Named,
      sides.leftOuter,
    );
  }
  if (second instanceof JoinWindows) {
    throw new TopologyError(
      'JoinWindows are for stream-stream joins: a stream-table join takes Joined options',
    );
  }
  return streamTableJoin(
    stream,
    other,
    first as AnyJoiner,
    (second ?? {}) as Joined<K, V, unknown>,
    sides.leftOuter,
  );
}

function describe(value: unknown): string {
  return value === null || typeof value !== 'object' ? String(value) : value.constructor.name;
}
