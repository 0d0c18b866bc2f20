// KStream.repartition (Kafka Streams' KStreamImpl.repartition, KIP-221): a repartition topic the
// user asked for, built as Kafka Streams' createRepartitionedSource builds it, so that describe()
// shows the same nodes (`<name>-repartition-sink`, `-filter`, `-source` for a named one).
import { TopologyError } from '../../errors.ts';
import type { AnySerde } from '../../processor/internals/internal-topology-builder.ts';
import { sinkPartitioner } from '../../processor/internals/sink-partitioner.ts';
import { checkStreamPartitioner, type StreamPartitioner } from '../../processor/stream-partitioner.ts';
import type { Serde } from '../../serdes/serde.ts';
import type { Repartitioned } from '../options.ts';
import type { InternalStreamsBuilder } from './internal-streams-builder.ts';

/** Adds the repartition after `parent`; returns its source node and the serdes it reads with. */
export function addUserRepartition<K, V>(
  builder: InternalStreamsBuilder,
  parent: string,
  repartitioned: Repartitioned<K, V>,
  known: { keySerde: Serde<K> | undefined; valueSerde: Serde<V> | undefined },
): { source: string; keySerde: Serde<K> | undefined; valueSerde: Serde<V> | undefined } {
  const keySerde = repartitioned.keySerde ?? known.keySerde;
  const valueSerde = repartitioned.valueSerde ?? known.valueSerde;
  const base = builder.nameOr(repartitioned.name, 'KSTREAM-REPARTITION-');
  const { numberOfPartitions, streamPartitioner } = repartitioned;
  if (numberOfPartitions !== undefined && !(Number.isInteger(numberOfPartitions) && numberOfPartitions > 0)) {
    throw new TopologyError(
      `Repartitioned.numberOfPartitions of ${base} is ${String(numberOfPartitions)}: give a positive integer, ` +
        'or leave it out for the partition count of the sub-topology that writes the topic',
    );
  }
  checkStreamPartitioner(streamPartitioner, `repartition ${base}`);
  const source = builder.addRepartition(
    parent,
    base,
    { keySerde: keySerde as AnySerde | undefined, valueSerde: valueSerde as AnySerde | undefined },
    true,
    true,
    {
      numberOfPartitions,
      partitioner: sinkPartitioner(
        streamPartitioner as StreamPartitioner<unknown, unknown> | undefined,
        `${base}-repartition-sink`,
      ),
    },
  );
  return { source, keySerde, valueSerde };
}
