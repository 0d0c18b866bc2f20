// Adds KStream-KTable and KStream-GlobalKTable joins to the graph, as Kafka Streams does: a stream
// whose key changed goes through a repartition topic first (`<name>-repartition`, the Joined name
// or the stream's node), the join processor (`KSTREAM-JOIN-n` / `KSTREAM-LEFTJOIN-n`) reads the
// table through its value getter, and the two inputs form a co-partition group checked at start.
// A global table needs neither: every instance holds all of it.
import { TopologyError } from '../../errors.ts';
import type { AnySerde } from '../../processor/internals/internal-topology-builder.ts';
import { joinBufferBuilder } from '../../state/time-ordered-join-buffer.ts';
import { isVersionedBuilder } from '../../state/versioned-store-builder.ts';
import type { GlobalKTable } from '../global-ktable.ts';
import { KStream } from '../kstream.ts';
import type { KTable } from '../ktable.ts';
import type { Joined, Named } from '../options.ts';
import type { InternalStreamsBuilder } from './internal-streams-builder.ts';
import { KStreamKTableJoinProcessor } from './kstream-ktable-join.ts';
import type { KTableValueGetterSupplier } from './ktable-value-getter.ts';
import { toJoinerWithKey, type ValueJoiner, type ValueJoinerWithKey } from './value-joiner.ts';

type AnyJoiner = ValueJoinerWithKey<unknown, unknown, unknown, unknown>;

export function streamTableJoin<K, V, VT, VR>(
  stream: KStream<K, V>,
  table: KTable<K, VT>,
  joiner: ValueJoiner<V, VT, VR> | ValueJoinerWithKey<K, V, VT, VR>,
  joined: Joined<K, V, VT>,
  leftJoin: boolean,
): KStream<K, VR> {
  const { builder } = stream;
  if (table.builder !== builder) {
    throw new TopologyError(
      `Cannot join stream ${stream.nodeName} with table ${table.nodeName}: they come from different StreamsBuilders`,
    );
  }
  const keySerde = joined.keySerde ?? stream.keySerde;
  let parent = stream.nodeName;
  if (stream.repartitionRequired) {
    // KIP-962: a left join keeps records with a null key, so its repartition topic does too.
    parent = builder.repartitionForJoin(
      stream,
      joined.name,
      {
        keySerde: keySerde as AnySerde | undefined,
        valueSerde: (joined.valueSerde ?? stream.valueSerde) as AnySerde | undefined,
      },
      leftJoin,
    );
  }
  builder.topology.addCopartitionGroup([parent, table.nodeName]);
  const getter = table.valueGetterSupplier();
  const name = builder.nameOr(joined.name, leftJoin ? 'KSTREAM-LEFTJOIN-' : 'KSTREAM-JOIN-');
  const join = toJoinerWithKey(joiner as AnyJoiner);
  const grace =
    joined.gracePeriodMs === undefined ? undefined : checkGrace(builder, getter, joined.gracePeriodMs);
  const buffer = grace === undefined ? undefined : { storeName: `${name}-Buffer`, gracePeriodMs: grace };
  builder.addProcessor(
    name,
    () => new KStreamKTableJoinProcessor(getter, (key) => key, join, leftJoin, buffer),
    [parent],
  );
  builder.topology.connectProcessorAndStateStores([name], getter.storeNames);
  if (buffer !== undefined) {
    // Kafka Streams' `<join name>-Buffer` store, with its changelog.
    const valueSerde = joined.valueSerde ?? stream.valueSerde;
    builder.addStateStore(
      joinBufferBuilder(
        buffer.storeName,
        keySerde as AnySerde | undefined,
        valueSerde as AnySerde | undefined,
      ),
      true,
      name,
    );
  }
  return new KStream<K, VR>(builder, name, keySerde, undefined, false);
}

/** Kafka Streams' checks of Joined.withGracePeriod (KIP-923): a versioned table that keeps history that long. */
function checkGrace(
  builder: InternalStreamsBuilder,
  getter: KTableValueGetterSupplier,
  gracePeriodMs: number,
): number {
  if (!Number.isSafeInteger(gracePeriodMs) || gracePeriodMs < 0)
    throw new TopologyError(`Joined.gracePeriodMs must be a whole number of ms >= 0, got ${gracePeriodMs}`);
  if (getter.getAsOf === undefined)
    throw new TopologyError(
      'KTable must be versioned to use a grace period in a stream table join: materialize the table on ' +
        'Stores.persistentVersionedKeyValueStore(name, historyRetentionMs), or drop Joined.gracePeriodMs.',
    );
  for (const storeName of getter.storeNames) {
    const store = builder.topology.storeBuilder(storeName);
    if (isVersionedBuilder(store) && store.supplier.historyRetentionMs < gracePeriodMs)
      throw new TopologyError(
        `History retention must be at least grace period: store '${storeName}' keeps ${store.supplier.historyRetentionMs} ms, the join's grace period is ${gracePeriodMs} ms.`,
      );
  }
  return gracePeriodMs;
}

export function globalTableJoin<K, V, KG, VG, VR>(
  stream: KStream<K, V>,
  table: GlobalKTable<KG, VG>,
  keySelector: (key: K, value: V) => KG,
  joiner: ValueJoiner<V, VG, VR> | ValueJoinerWithKey<K, V, VG, VR>,
  named: Named | undefined,
  leftJoin: boolean,
): KStream<K, VR> {
  const { builder } = stream;
  if (table.builder !== builder) {
    throw new TopologyError(
      `Cannot join stream ${stream.nodeName} with global table ${table.queryableStoreName}: ` +
        'they come from different StreamsBuilders',
    );
  }
  // Kafka Streams names both the inner and the left global join KSTREAM-LEFTJOIN-n.
  const name = builder.nameOr(named?.name, 'KSTREAM-LEFTJOIN-');
  const getter = table.valueGetterSupplier();
  const join = toJoinerWithKey(joiner as AnyJoiner);
  builder.addProcessor(
    name,
    () =>
      new KStreamKTableJoinProcessor(
        getter,
        keySelector as (key: unknown, value: unknown) => unknown,
        join,
        leftJoin,
      ),
    [stream.nodeName],
  );
  return new KStream<K, VR>(builder, name, stream.keySerde, undefined, stream.repartitionRequired);
}
