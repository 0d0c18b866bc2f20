import { TopologyError } from '../../errors.ts';
import {
  type AnyProcessor,
  type AnySerde,
  InternalTopologyBuilder,
  type SerdeWrapper,
} from '../../processor/internals/internal-topology-builder.ts';
import type { Serde } from '../../serdes/serde.ts';
import { type StoreBuilder, Stores, timestampedKeyValueStoreBuilder } from '../../state/store-builder.ts';
import { DropNullKeyProcessor } from './kstream-processors.ts';

/**
 * What every DSL object holds: the shared processor graph and the name counter, so that
 * generated names (KSTREAM-FILTER-0000000003) are deterministic per builder.
 */
export class InternalStreamsBuilder {
  readonly topology = new InternalTopologyBuilder();
  private index = 0;

  newProcessorName(prefix: string): string {
    return `${prefix}${String(this.index++).padStart(10, '0')}`;
  }

  newStoreName(prefix: string): string {
    return `${prefix}STATE-STORE-${String(this.index++).padStart(10, '0')}`;
  }

  /** The user's name, or a generated one. */
  nameOr(given: string | undefined, prefix: string): string {
    if (given === undefined) return this.newProcessorName(prefix);
    if (typeof given !== 'string' || given.length === 0) {
      throw new TopologyError(`A name given to ${prefix.replace(/-$/, '')} must be a non-empty string`);
    }
    return given;
  }

  addProcessor(name: string, supplier: () => AnyProcessor, parents: readonly string[]): string {
    this.topology.addProcessor(name, supplier, parents);
    return name;
  }

  addKeyValueStore(
    storeName: string,
    keySerde: Serde<unknown> | undefined,
    valueSerde: Serde<unknown> | undefined,
    loggingEnabled: boolean | undefined,
    processorName: string,
    timestamped = false,
  ): void {
    const builder = timestamped
      ? timestampedKeyValueStoreBuilder(storeName, keySerde, valueSerde)
      : Stores.keyValueStoreBuilder(storeName, keySerde, valueSerde);
    this.addStateStore(builder, loggingEnabled, processorName);
  }

  /** Adds a store to the topology, connected to the processor that owns it. */
  addStateStore(builder: StoreBuilder, loggingEnabled: boolean | undefined, processorName: string): void {
    this.topology.addStateStore(loggingEnabled === false ? builder.withLoggingDisabled() : builder, [
      processorName,
    ]);
  }

  /**
   * Adds sink -> `<name>-repartition` -> source and returns the source's name. `dropNullKeys` adds
   * a filter in front: as in Kafka Streams, a record with a null key never reaches a repartition
   * topic (KIP-962 keeps them only where a left or outer join follows: the joins pass false).
   * KTable.groupBy passes false: its mapper already skips them. `reserveFilterName`: a join's
   * repartition takes the filter's generated name even without the filter, as Kafka Streams does,
   * so that the names generated after it stay the same as Kafka Streams'.
   */
  addRepartition(
    parent: string,
    topicBase: string,
    serdes: {
      keySerde: AnySerde | undefined;
      valueSerde: AnySerde | undefined;
      valueSerdeWrapper?: SerdeWrapper;
    },
    dropNullKeys: boolean,
    reserveFilterName = false,
  ): string {
    const topic = `${topicBase}-repartition`;
    const sinkName = this.newProcessorName('KSTREAM-SINK-');
    let upstream = parent;
    if (dropNullKeys) {
      upstream = this.addProcessor(
        this.newProcessorName('KSTREAM-FILTER-'),
        () => new DropNullKeyProcessor(),
        [parent],
      );
    } else if (reserveFilterName) {
      this.newProcessorName('KSTREAM-FILTER-');
    }
    this.topology.addInternalTopic(topic);
    this.topology.addSink(sinkName, topic, [upstream], serdes);
    const sourceName = this.newProcessorName('KSTREAM-SOURCE-');
    this.topology.addSource(sourceName, [topic], serdes);
    return sourceName;
  }
}
