// Kafka Streams' CogroupedStreamAggregateBuilder (KIP-150): several grouped streams aggregated
// into one store. Each input gets its own aggregate processor (the plain, windowed or session
// one), all writing the one store, and a pass-through merge node after them is the table.
import { TopologyError } from '../../errors.ts';
import type { AnyProcessor, AnySerde } from '../../processor/internals/internal-topology-builder.ts';
import type { Serde } from '../../serdes/serde.ts';
import type { StoreBuilder } from '../../state/store-builder.ts';
import { KTable } from '../ktable.ts';
import type { Materialized } from '../options.ts';
import type { InternalStreamsBuilder } from './internal-streams-builder.ts';
import { PassThroughProcessor } from './kstream-processors.ts';

export const COGROUP_AGGREGATE_NAME = 'COGROUPKSTREAM-AGGREGATE-';
const COGROUP_MERGE_NAME = 'COGROUPKSTREAM-MERGE-';

export type CogroupAggregator = (key: unknown, value: unknown, aggregate: unknown) => unknown;

/** What the cogroup reads of a grouped stream. */
export interface CogroupInput {
  readonly nodeName: string;
  readonly keySerde: Serde<unknown> | undefined;
  readonly valueSerde: Serde<unknown> | undefined;
  readonly repartitionRequired: boolean;
  /** Grouped's name: the repartition topic's, else the store's name is used. */
  readonly groupedName: string | undefined;
}

export interface CogroupSpec<K, VOut, KT> {
  materialized: Materialized<K, VOut>;
  /** The first grouped stream's key serde (Materialized's wins). */
  keySerde: Serde<K> | undefined;
  /** The aggregate processor for one input (KStreamAggregate, KStreamWindowAggregate, ...). */
  processor(storeName: string, aggregator: CogroupAggregator): () => AnyProcessor;
  store(storeName: string, keySerde: Serde<K> | undefined, valueSerde: Serde<VOut> | undefined): StoreBuilder;
  tableKeySerde?(keySerde: Serde<K> | undefined): Serde<KT> | undefined;
  graceMs?: number;
}

/**
 * Adds the cogroup's nodes in Kafka Streams' order, so that generated names and describe() are
 * Java's: the store name, each re-keyed input's repartition (`<Grouped name or store
 * name>-repartition`, nodes named after the topic), the aggregate processors
 * (`COGROUPKSTREAM-AGGREGATE-n`, or `<name>-cogroup-agg-<i>` with a name, which still takes a
 * generated index) and the merge node (`COGROUPKSTREAM-MERGE-n` or `<name>-cogroup-merge`).
 */
export function addCogroupAggregation<K, VOut, KT>(
  builder: InternalStreamsBuilder,
  groups: ReadonlyMap<CogroupInput, CogroupAggregator>,
  spec: CogroupSpec<K, VOut, KT>,
): KTable<KT, VOut> {
  const { materialized } = spec;
  const named = materialized.name;
  if (named !== undefined && (typeof named !== 'string' || named.length === 0)) {
    throw new TopologyError('A name given to a cogroup aggregation must be a non-empty string');
  }
  const storeName = materialized.storeName ?? builder.newStoreName(COGROUP_AGGREGATE_NAME);
  const inputs = [...groups.keys()];
  requireDistinctRepartitions(inputs, storeName);
  const parents = inputs.map((input) =>
    input.repartitionRequired
      ? builder.addRepartition(
          input.nodeName,
          input.groupedName ?? storeName,
          {
            keySerde: input.keySerde as AnySerde | undefined,
            valueSerde: input.valueSerde as AnySerde | undefined,
          },
          true,
          true,
        )
      : input.nodeName,
  );
  builder.topology.addCopartitionGroup(parents);
  const nameFor = (suffix: string, prefix: string): string => {
    const generated = builder.newProcessorName(prefix);
    return named === undefined ? generated : `${named}${suffix}`;
  };
  const aggregators = [...groups.values()];
  const processors = parents.map((parent, i) => {
    const name = nameFor(`-cogroup-agg-${i}`, COGROUP_AGGREGATE_NAME);
    return builder.addProcessor(name, spec.processor(storeName, aggregators[i]!), [parent]);
  });
  const keySerde = materialized.keySerde ?? spec.keySerde;
  const valueSerde = materialized.valueSerde;
  builder.addStateStore(
    spec.store(storeName, keySerde, valueSerde),
    materialized.loggingEnabled,
    processors[0]!,
  );
  builder.topology.connectProcessorAndStateStores(processors.slice(1), [storeName]);
  if (materialized.cachingEnabled !== false) builder.topology.enableCaching(storeName);
  const merge = builder.addProcessor(
    nameFor('-cogroup-merge', COGROUP_MERGE_NAME),
    () => new PassThroughProcessor(),
    processors,
  );
  const tableKeySerde = spec.tableKeySerde
    ? spec.tableKeySerde(keySerde)
    : (keySerde as Serde<unknown> as Serde<KT> | undefined);
  return new KTable<KT, VOut>(builder, merge, tableKeySerde, valueSerde, storeName, undefined, spec.graceMs);
}

/**
 * Two re-keyed inputs without a Grouped name would both use `<store name>-repartition`; Kafka
 * Streams fails then too (a processor added twice), here with what to change.
 */
function requireDistinctRepartitions(inputs: readonly CogroupInput[], storeName: string): void {
  const topics = new Set<string>();
  for (const input of inputs) {
    if (!input.repartitionRequired) continue;
    const topic = `${input.groupedName ?? storeName}-repartition`;
    if (topics.has(topic)) {
      throw new TopologyError(
        `cogroup: two re-keyed grouped streams would share the repartition topic '${topic}'; ` +
          "name each one's repartition topic with groupByKey({ name }) or groupBy(selector, { name })",
      );
    }
    topics.add(topic);
  }
}
