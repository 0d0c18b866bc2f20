// Adds a foreign-key table join (KIP-213) to the graph, with Kafka Streams 4.4's node, store and
// topic names in its order, so that generated names (and so the internal topics) are Java's:
//   left table -> <reg>-processor -> sink -> <app>-KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-n-topic
//   -> source -> receive (+ subscription store) -> subscription join (reads the right table)
//   right table -> foreign join (scans the subscription store)
//   both joins -> sink -> <app>-KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-n-topic -> source
//   -> response resolver (reads the left table) -> KTABLE-FK-JOIN-OUTPUT-n (the result table)
// The registration topic is co-partitioned with the right table, the response topic with the left.
import { TopologyError } from '../../errors.ts';
import type { Serde } from '../../serdes/serde.ts';
import { Serdes } from '../../serdes/serdes.ts';
import { timestampedKeyValueStoreBuilder } from '../../state/store-builder.ts';
import { KTable } from '../ktable.ts';
import type { Materialized } from '../options.ts';
import {
  type ForeignKeyExtractor,
  ResponseJoinProcessor,
  SubscriptionSendProcessor,
} from './fk-left-processors.ts';
import { FkJoinResultProcessor } from './fk-result-processor.ts';
import {
  ForeignTableJoinProcessor,
  SubscriptionJoinProcessor,
  SubscriptionReceiveProcessor,
} from './fk-right-processors.ts';
import {
  type SubscriptionResponseWrapper,
  subscriptionResponseWrapperSerde,
  subscriptionWrapperSerde,
} from './fk-wire-format.ts';
import { TableSourceProcessor } from './ktable-processors.ts';
import { storeValueGetter } from './ktable-value-getter.ts';
import { toJoinerWithKey, type ValueJoinerWithKey } from './value-joiner.ts';

const FK_JOIN = 'KTABLE-FK-JOIN-';
const REGISTRATION = `${FK_JOIN}SUBSCRIPTION-REGISTRATION-`;
const RESPONSE = `${FK_JOIN}SUBSCRIPTION-RESPONSE-`;
const STATE_STORE = `${FK_JOIN}SUBSCRIPTION-STATE-STORE-`;
const PROCESSOR = `${FK_JOIN}SUBSCRIPTION-PROCESSOR-`;
const RESOLVER = `${FK_JOIN}SUBSCRIPTION-RESPONSE-RESOLVER-PROCESSOR-`;
const OUTPUT = `${FK_JOIN}OUTPUT-`;
const TOPIC_SUFFIX = '-topic';

type AnyTable = KTable<unknown, unknown>;

/**
 * A foreign-key extractor of one declared parameter takes the value (Kafka Streams' Function);
 * of two, the key and the value (its BiFunction, since 4.0).
 */
function toExtractor(extractor: unknown): ForeignKeyExtractor {
  if (typeof extractor !== 'function') {
    throw new TopologyError(
      'The foreign-key join needs a foreignKeyExtractor function: (value) => foreignKey or (key, value) => foreignKey',
    );
  }
  if (extractor.length === 2) return extractor as ForeignKeyExtractor;
  const byValue = extractor as (value: unknown) => unknown;
  return (_key, value) => byValue(value);
}

export function foreignKeyJoin(
  left: AnyTable,
  right: AnyTable,
  extractor: unknown,
  joiner: unknown,
  leftJoin: boolean,
  materialized: Materialized<unknown, unknown> | undefined,
): AnyTable {
  const { builder } = left;
  if (!(right instanceof KTable) || right.builder !== builder) {
    throw new TopologyError(
      `Cannot join ${left.nodeName} by foreign key with something that is not a KTable of the same StreamsBuilder`,
    );
  }
  const extract = toExtractor(extractor);
  if (typeof joiner !== 'function') {
    throw new TopologyError('The foreign-key join needs a joiner function: (value, otherValue) => result');
  }
  const join = toJoinerWithKey(joiner as ValueJoinerWithKey<unknown, unknown, unknown, unknown>);
  // Old values: the left side's tell which subscription to remove when the foreign key changes.
  right.enableSendingOldValues();
  left.enableSendingOldValues();
  // `materialized.name` is Kafka Streams' TableJoined name: the base of every node's name.
  const base = materialized?.name;
  const name = (suffix: string, prefix: string): string =>
    base === undefined ? builder.newProcessorName(prefix) : `${builder.nameOr(base, prefix)}${suffix}`;
  const { topology } = builder;

  const registrationTopic = name('-subscription-registration', REGISTRATION) + TOPIC_SUFFIX;
  topology.addInternalTopic(registrationTopic);
  const sendName = name('-subscription-registration-processor', REGISTRATION);
  builder.addProcessor(
    sendName,
    () =>
      new SubscriptionSendProcessor({
        extractor: extract,
        leftJoin,
        foreignKeySerde: right.keySerde,
        primaryKeySerde: left.keySerde,
        valueSerde: left.valueSerde,
        registrationTopic,
      }),
    [left.nodeName],
  );
  const wrapperSerdes = { keySerde: right.keySerde, valueSerde: subscriptionWrapperSerde as Serde<unknown> };
  topology.addSink(
    name('-subscription-registration-sink', 'KTABLE-SINK-'),
    registrationTopic,
    [sendName],
    wrapperSerdes,
  );
  const registrationSource = name('-subscription-registration-source', 'KTABLE-SOURCE-');
  topology.addSource(registrationSource, [registrationTopic], wrapperSerdes);
  topology.addCopartitionGroup([registrationSource, right.nodeName]);

  const storeName = name('-subscription-store', STATE_STORE);
  const receiveName = name('-subscription-receive', PROCESSOR);
  builder.addProcessor(
    receiveName,
    () => new SubscriptionReceiveProcessor({ storeName, foreignKeySerde: right.keySerde, registrationTopic }),
    [registrationSource],
  );
  builder.addStateStore(
    timestampedKeyValueStoreBuilder(storeName, Serdes.Bytes() as Serde<unknown>, subscriptionWrapperSerde),
    undefined,
    receiveName,
  );
  const rightGetter = right.valueGetterSupplier();
  const subscriptionJoinName = name('-subscription-join-foreign', PROCESSOR);
  const foreignJoinName = name('-foreign-join-subscription', PROCESSOR);
  const responseTopic = name('-subscription-response', RESPONSE) + TOPIC_SUFFIX;
  builder.addProcessor(
    subscriptionJoinName,
    () => new SubscriptionJoinProcessor({ rightGetter, foreignValueSerde: right.valueSerde, responseTopic }),
    [receiveName],
  );
  topology.connectProcessorAndStateStores([subscriptionJoinName], rightGetter.storeNames);
  builder.addProcessor(
    foreignJoinName,
    () =>
      new ForeignTableJoinProcessor({
        storeName,
        foreignKeySerde: right.keySerde,
        foreignValueSerde: right.valueSerde,
        registrationTopic,
        responseTopic,
      }),
    [right.nodeName],
  );
  topology.connectProcessorAndStateStores([foreignJoinName], [storeName]);

  topology.addInternalTopic(responseTopic);
  // Each response goes back to the partition of the left record that asked for it.
  topology.addSink(
    name('-subscription-response-sink', 'KTABLE-SINK-'),
    responseTopic,
    [subscriptionJoinName, foreignJoinName],
    {
      keySerde: Serdes.Bytes() as Serde<unknown>,
      valueSerde: subscriptionResponseWrapperSerde as Serde<unknown>,
    },
    (_key, value) => (value as SubscriptionResponseWrapper).primaryPartition,
  );
  const responseSource = name('-subscription-response-source', 'KTABLE-SOURCE-');
  topology.addSource(responseSource, [responseTopic], {
    keySerde: left.keySerde,
    valueSerde: subscriptionResponseWrapperSerde as Serde<unknown>,
  });
  topology.addCopartitionGroup([responseSource, left.nodeName]);

  const leftGetter = left.valueGetterSupplier();
  const resolverName = name('-subscription-response-resolver', RESOLVER);
  builder.addProcessor(
    resolverName,
    () =>
      new ResponseJoinProcessor({
        leftGetter,
        valueSerde: left.valueSerde,
        foreignValueSerde: right.valueSerde,
        joiner: join,
        leftJoin,
        registrationTopic,
        responseTopic,
      }),
    [responseSource],
  );
  topology.connectProcessorAndStateStores([resolverName], leftGetter.storeNames);

  const resultName = name('-result', OUTPUT);
  const resultStore = materialized?.storeName ?? builder.newStoreName(OUTPUT);
  const keySerde = (materialized?.keySerde ?? left.keySerde) as Serde<unknown> | undefined;
  const valueSerde = materialized?.valueSerde as Serde<unknown> | undefined;
  // As Kafka Streams' KTableSource: a store only when asked for, by Materialized or by an
  // operation downstream that needs old values or reads the result.
  let materializedStore: string | undefined;
  builder.addProcessor(
    resultName,
    () =>
      materializedStore === undefined
        ? new FkJoinResultProcessor()
        : new TableSourceProcessor(materializedStore),
    [resolverName],
  );
  const materialize = (): string => {
    if (materializedStore === undefined) {
      materializedStore = resultStore;
      builder.addStateStore(
        timestampedKeyValueStoreBuilder(resultStore, keySerde, valueSerde),
        materialized?.loggingEnabled,
        resultName,
      );
    }
    return materializedStore;
  };
  if (materialized !== undefined) materialize();
  return new KTable<unknown, unknown>(
    builder,
    resultName,
    keySerde,
    valueSerde,
    materialized === undefined ? undefined : resultStore,
    () => {
      materialize();
    },
    undefined,
    () => storeValueGetter(materialize()),
  );
}
