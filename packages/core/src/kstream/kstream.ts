import { TopologyError } from '../errors.ts';
import type { AnySerde } from '../processor/internals/internal-topology-builder.ts';
import { sinkPartitioner } from '../processor/internals/sink-partitioner.ts';
import type { FixedKeyProcessorSupplier, ProcessorSupplier } from '../processor/processor.ts';
import { checkStreamPartitioner, type StreamPartitioner } from '../processor/stream-partitioner.ts';
import type { TopicNameExtractor } from '../processor/topic-name-extractor.ts';
import type { Serde } from '../serdes/serde.ts';
import { BranchedKStream } from './branched-kstream.ts';
import type { GlobalKTable } from './global-ktable.ts';
import { splitNamedAndStores } from './internals/async-operators.ts';
import type { InternalStreamsBuilder, JoinRepartition } from './internals/internal-streams-builder.ts';
import { dispatchJoin } from './internals/join-dispatch.ts';
import {
  FilterProcessor,
  FixedKeyProcessorAdapter,
  FlatMapProcessor,
  FlatMapValuesProcessor,
  MapProcessor,
  MapValuesProcessor,
  PassThroughProcessor,
  PeekProcessor,
  SelectKeyProcessor,
} from './internals/kstream-processors.ts';
import { addUserRepartition } from './internals/repartitioned.ts';
import type { ValueJoiner, ValueJoinerWithKey } from './internals/value-joiner.ts';
import { addTableSource } from './internals/versioned-table.ts';
import type { JoinWindows } from './join-windows.ts';
import type { KeyValue } from './key-value.ts';
import { KGroupedStream } from './kgrouped-stream.ts';
import { KStreamAsyncOperators } from './kstream-async.ts';
import { KTable } from './ktable.ts';
import type {
  Grouped,
  Joined,
  Materialized,
  Named,
  Produced,
  Repartitioned,
  StreamJoined,
} from './options.ts';

/**
 * An unbounded stream of records with keys of type K and values of type V. Each operation adds
 * processors to the topology and returns a new KStream; types follow the chain.
 */
export class KStream<K, V> extends KStreamAsyncOperators<K, V> {
  /** @internal */
  constructor(
    /** @internal */ readonly builder: InternalStreamsBuilder,
    /** @internal The node whose output this stream is. */ readonly nodeName: string,
    /** @internal Known serdes, inherited by later operations until the type changes. */
    readonly keySerde: Serde<K> | undefined,
    /** @internal */ readonly valueSerde: Serde<V> | undefined,
    /** @internal Whether the key may have changed since the last repartition. */
    readonly repartitionRequired: boolean,
  ) {
    super();
  }

  /** @internal This stream's repartition for joins, once a join made one (Kafka Streams reuses it). */
  joinRepartition: JoinRepartition | undefined;

  private next<KR, VR>(
    prefix: string,
    named: Named | undefined,
    processor: () => unknown,
    keySerde: Serde<KR> | undefined,
    valueSerde: Serde<VR> | undefined,
    repartitionRequired: boolean,
  ): KStream<KR, VR> {
    const name = this.builder.nameOr(named?.name, prefix);
    this.builder.addProcessor(name, processor as () => PassThroughProcessor, [this.nodeName]);
    return new KStream<KR, VR>(this.builder, name, keySerde, valueSerde, repartitionRequired);
  }

  filter(predicate: (key: K, value: V) => boolean, named?: Named): KStream<K, V> {
    return this.next(
      'KSTREAM-FILTER-',
      named,
      () => new FilterProcessor(predicate as (k: unknown, v: unknown) => boolean, false),
      this.keySerde,
      this.valueSerde,
      this.repartitionRequired,
    );
  }

  filterNot(predicate: (key: K, value: V) => boolean, named?: Named): KStream<K, V> {
    return this.next(
      'KSTREAM-FILTER-',
      named,
      () => new FilterProcessor(predicate as (k: unknown, v: unknown) => boolean, true),
      this.keySerde,
      this.valueSerde,
      this.repartitionRequired,
    );
  }

  /** New key and value per record; a stateful operation afterwards repartitions. */
  map<KR, VR>(mapper: (key: K, value: V) => KeyValue<KR, VR>, named?: Named): KStream<KR, VR> {
    return this.next<KR, VR>(
      'KSTREAM-MAP-',
      named,
      () => new MapProcessor(mapper as (k: unknown, v: unknown) => KeyValue<unknown, unknown>),
      undefined,
      undefined,
      true,
    );
  }

  mapValues<VR>(mapper: (value: V, key: K) => VR, named?: Named): KStream<K, VR> {
    return this.next<K, VR>(
      'KSTREAM-MAPVALUES-',
      named,
      () => new MapValuesProcessor(mapper as (v: unknown, k: unknown) => unknown),
      this.keySerde,
      undefined,
      this.repartitionRequired,
    );
  }

  flatMap<KR, VR>(mapper: (key: K, value: V) => Iterable<KeyValue<KR, VR>>, named?: Named): KStream<KR, VR> {
    return this.next<KR, VR>(
      'KSTREAM-FLATMAP-',
      named,
      () => new FlatMapProcessor(mapper as (k: unknown, v: unknown) => Iterable<KeyValue<unknown, unknown>>),
      undefined,
      undefined,
      true,
    );
  }

  flatMapValues<VR>(mapper: (value: V, key: K) => Iterable<VR>, named?: Named): KStream<K, VR> {
    return this.next<K, VR>(
      'KSTREAM-FLATMAPVALUES-',
      named,
      () => new FlatMapValuesProcessor(mapper as (v: unknown, k: unknown) => Iterable<unknown>),
      this.keySerde,
      undefined,
      this.repartitionRequired,
    );
  }

  selectKey<KR>(selector: (key: K, value: V) => KR, named?: Named): KStream<KR, V> {
    return this.next<KR, V>(
      'KSTREAM-KEY-SELECT-',
      named,
      () => new SelectKeyProcessor(selector as (k: unknown, v: unknown) => unknown),
      undefined,
      this.valueSerde,
      true,
    );
  }

  peek(action: (key: K, value: V) => void, named?: Named): KStream<K, V> {
    return this.next(
      'KSTREAM-PEEK-',
      named,
      () => new PeekProcessor(action as (k: unknown, v: unknown) => void),
      this.keySerde,
      this.valueSerde,
      this.repartitionRequired,
    );
  }

  /** A terminal action per record. */
  foreach(action: (key: K, value: V) => void, named?: Named): void {
    this.next(
      'KSTREAM-FOREACH-',
      named,
      () => new PeekProcessor(action as (k: unknown, v: unknown) => void),
      undefined,
      undefined,
      false,
    );
  }

  /** Routes each record to the first branch whose predicate matches (see BranchedKStream). */
  split(named?: Named): BranchedKStream<K, V> {
    return new BranchedKStream(this, named?.name);
  }

  merge(other: KStream<K, V>, named?: Named): KStream<K, V> {
    if (other.builder !== this.builder) {
      throw new TopologyError(
        `Cannot merge ${other.nodeName} into ${this.nodeName}: they come from different StreamsBuilders`,
      );
    }
    const name = this.builder.nameOr(named?.name, 'KSTREAM-MERGE-');
    this.builder.addProcessor(name, () => new PassThroughProcessor(), [this.nodeName, other.nodeName]);
    return new KStream<K, V>(
      this.builder,
      name,
      this.keySerde === other.keySerde ? this.keySerde : undefined,
      this.valueSerde === other.valueSerde ? this.valueSerde : undefined,
      this.repartitionRequired || other.repartitionRequired,
    );
  }

  /** Writes to a topic, or to the topic `extractor` picks per record (partitions: Produced.streamPartitioner). */
  to(topic: string | TopicNameExtractor<K, V>, produced: Produced<K, V> = {}): void {
    const name = this.builder.nameOr(produced.name, 'KSTREAM-SINK-');
    checkStreamPartitioner(produced.streamPartitioner, `sink ${name}`);
    this.builder.topology.addSink(
      name,
      topic as string | TopicNameExtractor<unknown, unknown>,
      [this.nodeName],
      {
        keySerde: (produced.keySerde ?? this.keySerde) as AnySerde | undefined,
        valueSerde: (produced.valueSerde ?? this.valueSerde) as AnySerde | undefined,
      },
      sinkPartitioner(produced.streamPartitioner as StreamPartitioner<unknown, unknown> | undefined, name),
    );
  }

  /**
   * Through a repartition topic `<applicationId>-<name>-repartition`, partitioned by the current key
   * or the Repartitioned's streamPartitioner, with its numberOfPartitions if given. Records with a
   * null key are dropped before the topic, as in Kafka Streams.
   */
  repartition(repartitioned: Repartitioned<K, V> = {}): KStream<K, V> {
    const { source, keySerde, valueSerde } = addUserRepartition(
      this.builder,
      this.nodeName,
      repartitioned,
      this,
    );
    return new KStream<K, V>(this.builder, source, keySerde, valueSerde, false);
  }

  groupByKey(grouped: Grouped<K, V> = {}): KGroupedStream<K, V> {
    return new KGroupedStream<K, V>(
      this.builder,
      this.nodeName,
      grouped.keySerde ?? this.keySerde,
      grouped.valueSerde ?? this.valueSerde,
      this.repartitionRequired,
      grouped.name,
    );
  }

  /** Groups by a new key: the aggregation that follows reads from a repartition topic. */
  groupBy<KR>(selector: (key: K, value: V) => KR, grouped: Grouped<KR, V> = {}): KGroupedStream<KR, V> {
    const selected = this.selectKey(selector);
    return new KGroupedStream<KR, V>(
      this.builder,
      selected.nodeName,
      grouped.keySerde,
      grouped.valueSerde ?? this.valueSerde,
      true,
      grouped.name,
    );
  }

  /** The latest value per key as a KTable (null values delete). */
  toTable(materialized: Materialized<K, V> = {}): KTable<K, V> {
    const keySerde = materialized.keySerde ?? this.keySerde;
    const valueSerde = materialized.valueSerde ?? this.valueSerde;
    const storeName = materialized.storeName ?? this.builder.newStoreName('KSTREAM-TOTABLE-');
    const name = this.builder.nameOr(materialized.name, 'KSTREAM-TOTABLE-');
    let parent = this.nodeName;
    if (this.repartitionRequired) {
      parent = this.builder.addRepartition(
        parent,
        storeName,
        { keySerde: keySerde as AnySerde | undefined, valueSerde: valueSerde as AnySerde | undefined },
        true,
      );
    }
    addTableSource(
      this.builder,
      name,
      parent,
      storeName,
      { keySerde, valueSerde },
      materialized as Materialized<unknown, unknown>,
    );
    return new KTable<K, V>(this.builder, name, keySerde, valueSerde, storeName);
  }

  /**
   * Joins each record with the table's current row for its key (Kafka Streams' stream-table
   * join): the stream side triggers, table updates only update the table. A record with a null key
   * or value, or without a row, gives nothing; the result keeps the record's key and timestamp. A
   * stream whose key changed is repartitioned first; the two inputs must be co-partitioned.
   * With a GlobalKTable, `keySelector` picks the table key and nothing is repartitioned.
   * With another KStream and JoinWindows (Kafka Streams' stream-stream join): each record joins
   * every record of the other side whose timestamp is within the window, either side triggering;
   * the result has the larger timestamp of the two. A joiner with three declared parameters
   * (`joiner.length === 3`) is a ValueJoinerWithKey `(key, value, otherValue)`; otherwise a
   * ValueJoiner `(value, otherValue)`.
   */
  join<VT, VR>(
    table: KTable<K, VT>,
    joiner: ValueJoiner<V, VT, VR>,
    joined?: Joined<K, V, VT>,
  ): KStream<K, VR>;
  join<VT, VR>(
    table: KTable<K, VT>,
    joiner: ValueJoinerWithKey<K, V, VT, VR>,
    joined?: Joined<K, V, VT>,
  ): KStream<K, VR>;
  join<KG, VG, VR>(
    table: GlobalKTable<KG, VG>,
    keySelector: (key: K, value: V) => KG,
    joiner: ValueJoiner<V, VG, VR>,
    named?: Named,
  ): KStream<K, VR>;
  join<KG, VG, VR>(
    table: GlobalKTable<KG, VG>,
    keySelector: (key: K, value: V) => KG,
    joiner: ValueJoinerWithKey<K, V, VG, VR>,
    named?: Named,
  ): KStream<K, VR>;
  join<VO, VR>(
    otherStream: KStream<K, VO>,
    joiner: ValueJoiner<V, VO, VR>,
    windows: JoinWindows,
    streamJoined?: StreamJoined<K, V, VO>,
  ): KStream<K, VR>;
  join<VO, VR>(
    otherStream: KStream<K, VO>,
    joiner: ValueJoinerWithKey<K, V, VO, VR>,
    windows: JoinWindows,
    streamJoined?: StreamJoined<K, V, VO>,
  ): KStream<K, VR>;
  join(other: KTable<K, unknown> | GlobalKTable<unknown, unknown> | KStream<K, unknown>, ...rest: unknown[]) {
    return dispatchJoin(this, other, rest, { leftOuter: false, rightOuter: false });
  }

  /**
   * As join(), but a record without a row is joined with null (`joiner(value, null)`), and a
   * record with a null key (and a value) is kept and joined with null (KIP-962). With a stream,
   * a record that joined nothing is joined with null once its window has closed (grace included).
   */
  leftJoin<VT, VR>(
    table: KTable<K, VT>,
    joiner: ValueJoiner<V, VT | null, VR>,
    joined?: Joined<K, V, VT>,
  ): KStream<K, VR>;
  leftJoin<VT, VR>(
    table: KTable<K, VT>,
    joiner: ValueJoinerWithKey<K, V, VT | null, VR>,
    joined?: Joined<K, V, VT>,
  ): KStream<K, VR>;
  leftJoin<KG, VG, VR>(
    table: GlobalKTable<KG, VG>,
    keySelector: (key: K, value: V) => KG,
    joiner: ValueJoiner<V, VG | null, VR>,
    named?: Named,
  ): KStream<K, VR>;
  leftJoin<KG, VG, VR>(
    table: GlobalKTable<KG, VG>,
    keySelector: (key: K, value: V) => KG,
    joiner: ValueJoinerWithKey<K, V, VG | null, VR>,
    named?: Named,
  ): KStream<K, VR>;
  leftJoin<VO, VR>(
    otherStream: KStream<K, VO>,
    joiner: ValueJoiner<V, VO | null, VR>,
    windows: JoinWindows,
    streamJoined?: StreamJoined<K, V, VO>,
  ): KStream<K, VR>;
  leftJoin<VO, VR>(
    otherStream: KStream<K, VO>,
    joiner: ValueJoinerWithKey<K, V, VO | null, VR>,
    windows: JoinWindows,
    streamJoined?: StreamJoined<K, V, VO>,
  ): KStream<K, VR>;
  leftJoin(
    other: KTable<K, unknown> | GlobalKTable<unknown, unknown> | KStream<K, unknown>,
    ...rest: unknown[]
  ) {
    return dispatchJoin(this, other, rest, { leftOuter: true, rightOuter: false });
  }

  /**
   * A stream-stream join in which both sides' records that found no partner within the window
   * are joined with null, once their window has closed (`joiner(value, null)` for this side,
   * `joiner(null, otherValue)` for the other).
   */
  outerJoin<VO, VR>(
    otherStream: KStream<K, VO>,
    joiner: ValueJoiner<V | null, VO | null, VR>,
    windows: JoinWindows,
    streamJoined?: StreamJoined<K, V, VO>,
  ): KStream<K, VR>;
  outerJoin<VO, VR>(
    otherStream: KStream<K, VO>,
    joiner: ValueJoinerWithKey<K, V | null, VO | null, VR>,
    windows: JoinWindows,
    streamJoined?: StreamJoined<K, V, VO>,
  ): KStream<K, VR>;
  outerJoin(other: KStream<K, unknown>, ...rest: unknown[]) {
    return dispatchJoin(this, other, rest, { leftOuter: true, rightOuter: true });
  }

  /**
   * Runs a Processor API processor; the remaining arguments are store names (added with
   * `StreamsBuilder.addStateStore`) and optionally a `{ name }`. The key may change, so a
   * stateful operation afterwards repartitions.
   */
  process<KOut, VOut>(
    supplier: ProcessorSupplier<K, V, KOut, VOut>,
    ...storesOrNamed: Array<string | Named>
  ): KStream<KOut, VOut> {
    const { name: given, stores } = splitNamedAndStores(storesOrNamed);
    const name = this.builder.nameOr(given, 'KSTREAM-PROCESSOR-');
    this.builder.addProcessor(name, supplier, [this.nodeName]);
    if (stores.length > 0) this.builder.topology.connectProcessorAndStateStores([name], stores);
    return new KStream<KOut, VOut>(this.builder, name, undefined, undefined, true);
  }

  /** Like process(), but the processor cannot change keys, so no repartition follows. */
  processValues<VOut>(
    supplier: FixedKeyProcessorSupplier<K, V, VOut>,
    ...storesOrNamed: Array<string | Named>
  ): KStream<K, VOut> {
    const { name: given, stores } = splitNamedAndStores(storesOrNamed);
    const name = this.builder.nameOr(given, 'KSTREAM-PROCESSVALUES-');
    this.builder.addProcessor(
      name,
      () =>
        new FixedKeyProcessorAdapter(supplier() as ConstructorParameters<typeof FixedKeyProcessorAdapter>[0]),
      [this.nodeName],
    );
    if (stores.length > 0) this.builder.topology.connectProcessorAndStateStores([name], stores);
    return new KStream<K, VOut>(this.builder, name, this.keySerde, undefined, this.repartitionRequired);
  }

  /** @internal The stream below an asynchronous operator (see KStreamAsyncOperators). */
  protected asyncChild<KR, VR>(name: string, keepsKey: boolean): KStream<KR, VR> {
    if (keepsKey)
      return new KStream<KR, VR>(
        this.builder,
        name,
        this.keySerde as never,
        undefined,
        this.repartitionRequired,
      );
    return new KStream<KR, VR>(this.builder, name, undefined, undefined, true);
  }
}
