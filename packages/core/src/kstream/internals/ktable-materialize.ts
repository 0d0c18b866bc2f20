// What a join reads a table through when the table has no value getter of its own: its store,
// if it keeps rows with their timestamps, else a store added for the purpose. Kafka Streams
// materializes such a table too (a suppressed or windowed table has no plain key-value store).
import type { TypedKeyValueStore } from '@kstreams/state-store';
import type { Processor, ProcessorContext } from '../../processor/processor.ts';
import type { Record } from '../../processor/record.ts';
import type { Serde } from '../../serdes/serde.ts';
import { timestampedKeyValueStoreBuilder } from '../../state/store-builder.ts';
import { timestampedView, type ValueAndTimestamp } from '../../state/value-and-timestamp.ts';
import type { Change } from './change.ts';
import type { InternalStreamsBuilder } from './internal-streams-builder.ts';
import { type KTableValueGetterSupplier, storeValueGetter } from './ktable-value-getter.ts';
import { versionedStoreValueGetter } from './versioned-table.ts';

/** Writes each change's new value (a deletion removes the row) and forwards the change as it is. */
class TableMaterializeProcessor implements Processor<unknown, Change<unknown>, unknown, unknown> {
  private ctx!: ProcessorContext<unknown, unknown>;
  private store!: TypedKeyValueStore<unknown, ValueAndTimestamp<unknown>>;
  constructor(private readonly storeName: string) {}
  init(context: ProcessorContext<unknown, unknown>): void {
    this.ctx = context;
    this.store = timestampedView(context.getStateStore<TypedKeyValueStore<unknown, unknown>>(this.storeName));
  }
  process(record: Record<unknown, Change<unknown>>): void {
    const { newValue } = record.value;
    if (newValue === null || newValue === undefined) this.store.delete(record.key);
    else this.store.put(record.key, { value: newValue, timestamp: record.timestamp });
    this.ctx.forward(record);
  }
}

export interface TableToMaterialize {
  readonly builder: InternalStreamsBuilder;
  readonly nodeName: string;
  readonly keySerde: Serde<unknown> | undefined;
  readonly valueSerde: Serde<unknown> | undefined;
  readonly queryableStoreName: string | undefined;
}

/**
 * The table's own store when it is a timestamped key-value store (source tables, aggregations,
 * materialized joins); else a logged store `<node>-STATE-STORE` written by a processor
 * `<node>-MATERIALIZE` under the table's node (names from the node, so that the generated names of
 * later operations stay Kafka Streams').
 */
export function materializedValueGetter(table: TableToMaterialize): KTableValueGetterSupplier {
  const { builder, queryableStoreName } = table;
  const own =
    queryableStoreName === undefined ? undefined : builder.topology.storeBuilder(queryableStoreName);
  if (own !== undefined && own.type === 'key-value' && own.timestamped === true) {
    return storeValueGetter(own.name);
  }
  if (own !== undefined && own.type === 'versioned') return versionedStoreValueGetter(own.name);
  const storeName = `${table.nodeName}-STATE-STORE`;
  const name = builder.addProcessor(
    `${table.nodeName}-MATERIALIZE`,
    () => new TableMaterializeProcessor(storeName),
    [table.nodeName],
  );
  builder.addStateStore(
    timestampedKeyValueStoreBuilder(storeName, table.keySerde, table.valueSerde),
    true,
    name,
  );
  return storeValueGetter(storeName);
}
