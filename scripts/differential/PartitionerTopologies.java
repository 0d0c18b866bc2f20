// The partitioning topologies of the differential harness (issue 38), compiled with
// Differential.java: a StreamPartitioner on a named repartition and on a sink (KIP-837: an empty
// set drops the record, no set leaves it to the default partitioner), and a named repartition
// with its own partition count. The driver gives every topic one partition, so what differs is
// which records pass, the outputs and describe().
// packages/core/test/differential/scenarios-partitioners.ts builds the same topologies with kstreams.

import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.Repartitioned;
import org.apache.kafka.streams.processor.StreamPartitioner;

final class PartitionerTopologies {
  private PartitionerTopologies() {}

  private static final Serde<String> S = Serdes.String();
  private static final Serde<Long> L = Serdes.Long();

  /** "drop..." goes nowhere, "default..." to the default partitioner, the rest by key length. */
  static final StreamPartitioner<String, String> BY_VALUE = (topic, key, value, numPartitions) -> {
    if (value.startsWith("drop")) return Optional.of(Set.of());
    if (value.startsWith("default")) return Optional.empty();
    return Optional.of(Set.of(key.length() % numPartitions));
  };

  static boolean build(StreamsBuilder builder, String name) {
    switch (name) {
      case "partitioner-repartition": {
        KStream<String, String> rekeyed = builder.<String, String>stream("in")
            .selectKey((k, v) -> v.split("-")[v.split("-").length - 1])
            .repartition(Repartitioned.<String, String>as("by-value").withStreamPartitioner(BY_VALUE));
        rekeyed.to("passed");
        rekeyed.groupByKey().count().toStream().to("counts", Produced.with(S, L));
        return true;
      }
      case "partitioner-sink":
        builder.<String, String>stream("in").to("out", Produced.with(S, S).withStreamPartitioner(BY_VALUE));
        return true;
      case "repartition-number-of-partitions":
        builder.<String, String>stream("in")
            .selectKey((k, v) -> v)
            .repartition(Repartitioned.<String, String>as("wide").withNumberOfPartitions(3))
            .groupByKey()
            .count()
            .toStream()
            .to("out", Produced.with(S, L));
        return true;
      default:
        return false;
    }
  }
}
