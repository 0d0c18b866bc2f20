// Versioned tables (KIP-914): a source table or toTable() materialized on a versioned store.
// The source processor puts each update with its timestamp; the store says whether it became the
// latest version, and a join reads the table as of the stream record's timestamp.
import type { TypedVersionedKeyValueStore } from '@kstreams/state-store';
import { PUT_RETURN_CODE_NOT_PUT, PUT_RETURN_CODE_VALID_TO_UNDEFINED } from '@kstreams/state-store';
import type { AnySerde } from '../../processor/internals/internal-topology-builder.ts';
import type { Processor, ProcessorContext } from '../../processor/processor.ts';
import type { Record } from '../../processor/record.ts';
import type { Serde } from '../../serdes/serde.ts';
import { VersionedKeyValueStoreBuilder } from '../../state/versioned-store-builder.ts';
import type { Materialized } from '../options.ts';
import { Change } from './change.ts';
import { droppedRecord } from './dropped-records.ts';
import type { InternalStreamsBuilder } from './internal-streams-builder.ts';
import { TableSourceProcessor } from './ktable-processors.ts';
import type { KTableValueGetterSupplier } from './ktable-value-getter.ts';

type Ctx = ProcessorContext<unknown, unknown>;
type Store = TypedVersionedKeyValueStore<unknown, unknown>;

function isAbsent(value: unknown): value is null | undefined {
  return value === null || value === undefined;
}

/**
 * Kafka Streams' KTableSource over a versioned store: an update older than the store's history
 * retention (its grace period) is dropped, neither stored nor forwarded; any other is stored and
 * forwarded with the latest value it replaced as the old value, and `isLatest` false when it is
 * out of order (older than the latest version), as Kafka Streams forwards it.
 */
export class VersionedTableSourceProcessor implements Processor<unknown, unknown, unknown, unknown> {
  private ctx!: Ctx;
  private store!: Store;
  constructor(private readonly storeName: string) {}
  init(context: Ctx): void {
    this.ctx = context;
    this.store = context.getStateStore<Store>(this.storeName);
  }
  process(record: Record<unknown, unknown>): void {
    if (isAbsent(record.key)) {
      droppedRecord(this.ctx, 'null key');
      return;
    }
    const old = this.store.get(record.key)?.value ?? null;
    const value = isAbsent(record.value) ? null : record.value;
    const code = this.store.put(record.key, value, record.timestamp);
    if (code === PUT_RETURN_CODE_NOT_PUT) {
      droppedRecord(this.ctx, 'expired: older than the versioned store history retention');
      return;
    }
    this.ctx.forward(record.withValue(new Change(value, old, code === PUT_RETURN_CODE_VALID_TO_UNDEFINED)));
  }
}

/**
 * Adds the store and source processor of a table read from `parent` (builder.table, toTable):
 * a versioned store when `materialized.storeSupplier` is given, else a cached-if-named timestamped
 * store. Returns the store's name.
 */
export function addTableSource(
  builder: InternalStreamsBuilder,
  name: string,
  parent: string,
  storeName: string,
  serdes: { keySerde: Serde<unknown> | undefined; valueSerde: Serde<unknown> | undefined },
  materialized: Materialized<unknown, unknown>,
): void {
  const supplier = materialized.storeSupplier;
  if (supplier === undefined) {
    builder.addProcessor(name, () => new TableSourceProcessor(storeName), [parent]);
    builder.addKeyValueStore(
      storeName,
      serdes.keySerde as AnySerde | undefined,
      serdes.valueSerde as AnySerde | undefined,
      materialized.loggingEnabled,
      name,
      true,
    );
    builder.cacheQueryableStore(materialized);
    return;
  }
  builder.addProcessor(name, () => new VersionedTableSourceProcessor(storeName), [parent]);
  builder.addStateStore(
    new VersionedKeyValueStoreBuilder(supplier, serdes.keySerde, serdes.valueSerde, true),
    materialized.loggingEnabled,
    name,
  );
}

/**
 * A versioned store's rows for a join: the latest (Kafka Streams' get(key)) and, for a stream-table
 * join, the version valid at the stream record's timestamp (get(key, asOfTimestamp)).
 */
export function versionedStoreValueGetter(storeName: string): KTableValueGetterSupplier {
  const view = (context: Ctx) => context.getStateStore<Store>(storeName);
  return {
    storeNames: [storeName],
    get(context) {
      const store = view(context);
      return (key) => store.get(key) ?? undefined;
    },
    getAsOf(context) {
      const store = view(context);
      return (key, asOf) => store.get(key, asOf) ?? undefined;
    },
  };
}
