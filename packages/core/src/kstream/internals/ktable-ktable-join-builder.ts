// Adds a KTable-KTable join to the graph, named and wired as Kafka Streams does: a processor per
// side (`KTABLE-JOINTHIS-n`, `KTABLE-JOINOTHER-n`, or `<name>-join-this` / `-join-other`), each
// connected to the other side's stores, and the merge node (`KTABLE-MERGE-n` or `<name>`) that is
// the result table.
import { TopologyError } from '../../errors.ts';
import type { Serde } from '../../serdes/serde.ts';
import { timestampedKeyValueStoreBuilder } from '../../state/store-builder.ts';
import { KTable } from '../ktable.ts';
import type { Materialized } from '../options.ts';
import {
  type JoinSide,
  joinValueGetter,
  KTableKTableJoinMergeProcessor,
  KTableKTableJoinProcessor,
} from './ktable-ktable-join.ts';
import { storeValueGetter } from './ktable-value-getter.ts';
import { toJoinerWithKey, type ValueJoiner, type ValueJoinerWithKey } from './value-joiner.ts';

export type TableJoinKind = 'inner' | 'left' | 'outer';

const SIDES: Record<TableJoinKind, [JoinSide, JoinSide]> = {
  inner: ['inner', 'inner'],
  left: ['left', 'right'],
  outer: ['outer', 'outer'],
};

export function tableTableJoin<K, V, VO, VR>(
  left: KTable<K, V>,
  right: KTable<K, VO>,
  joiner: ValueJoiner<V | null, VO | null, VR> | ValueJoinerWithKey<K, V | null, VO | null, VR>,
  kind: TableJoinKind,
  materialized: Materialized<K, VR> | undefined,
): KTable<K, VR> {
  const { builder } = left;
  if (right.builder !== builder) {
    throw new TopologyError(
      `Cannot join table ${right.nodeName} with ${left.nodeName}: they come from different StreamsBuilders`,
    );
  }
  const given = materialized?.name;
  const storeName =
    materialized === undefined
      ? undefined
      : (materialized.storeName ?? builder.newStoreName('KTABLE-MERGE-'));
  const mergeName = builder.nameOr(given, 'KTABLE-MERGE-');
  builder.topology.addCopartitionGroup([left.nodeName, right.nodeName]);
  // A left side's deletion must retract its earlier (left, null) result, which needs its old value.
  if (kind !== 'inner') left.enableSendingOldValues();
  if (kind === 'outer') right.enableSendingOldValues();
  const thisName = given === undefined ? builder.newProcessorName('KTABLE-JOINTHIS-') : `${given}-join-this`;
  const otherName =
    given === undefined ? builder.newProcessorName('KTABLE-JOINOTHER-') : `${given}-join-other`;

  const leftGetter = left.valueGetterSupplier();
  const rightGetter = right.valueGetterSupplier();
  const join = toJoinerWithKey(joiner as ValueJoinerWithKey<unknown, unknown, unknown, unknown>);
  const reversed = (key: unknown, value: unknown, leftValue: unknown) => join(key, leftValue, value);
  const options = { sendOldValues: false };
  const [thisSide, otherSide] = SIDES[kind];
  builder.addProcessor(thisName, () => new KTableKTableJoinProcessor(thisSide, rightGetter, join, options), [
    left.nodeName,
  ]);
  builder.topology.connectProcessorAndStateStores([thisName], rightGetter.storeNames);
  builder.addProcessor(
    otherName,
    () => new KTableKTableJoinProcessor(otherSide, leftGetter, reversed, options),
    [right.nodeName],
  );
  builder.topology.connectProcessorAndStateStores([otherName], leftGetter.storeNames);
  builder.addProcessor(mergeName, () => new KTableKTableJoinMergeProcessor(storeName, options), [
    thisName,
    otherName,
  ]);
  const keySerde = (materialized?.keySerde ?? left.keySerde) as Serde<K> | undefined;
  const valueSerde = materialized?.valueSerde;
  if (storeName !== undefined) {
    builder.addStateStore(
      timestampedKeyValueStoreBuilder(storeName, keySerde, valueSerde),
      materialized?.loggingEnabled,
      mergeName,
    );
  }
  return new KTable<K, VR>(
    builder,
    mergeName,
    keySerde,
    valueSerde,
    storeName,
    () => {
      options.sendOldValues = true;
      left.enableSendingOldValues();
      right.enableSendingOldValues();
    },
    undefined,
    () =>
      storeName === undefined
        ? joinValueGetter(kind, leftGetter, rightGetter, join)
        : storeValueGetter(storeName),
  );
}
