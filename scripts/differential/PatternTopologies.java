// The pattern-source topologies of the differential harness (issue 38: Kafka Streams'
// StreamsBuilder.stream(Pattern)), compiled with Differential.java. The driver feeds topics that
// match the pattern to its one source node. scenarios-pattern.ts builds the same with kstreams.

import java.util.regex.Pattern;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Produced;

final class PatternTopologies {
  private PatternTopologies() {}

  private static final Serde<String> S = Serdes.String();
  private static final Serde<Long> L = Serdes.Long();

  static boolean build(StreamsBuilder builder, String name) {
    switch (name) {
      case "pattern-source": {
        KStream<String, String> orders = builder.stream(Pattern.compile("orders-.*"));
        orders.mapValues(v -> v.toUpperCase()).to("upper");
        orders.groupByKey().count().toStream().to("counts", Produced.with(S, L));
        builder.<String, String>stream("returns").to("returned");
        return true;
      }
      default:
        return false;
    }
  }
}
