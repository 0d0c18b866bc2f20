// The versioned-table topologies of the differential harness (issue 39, KIP-889/914), compiled
// with Differential.java: a table on a versioned store (history retention 100 ms) and temporal
// stream-table joins against it, also with a grace period (KIP-923).
// packages/core/test/differential/scenarios-versioned.ts builds the same topologies with kstreams.

import java.time.Duration;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Joined;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.KTable;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.ValueJoiner;
import org.apache.kafka.streams.state.Stores;

final class VersionedTopologies {
  private VersionedTopologies() {}

  private static final Serde<String> S = Serdes.String();
  private static final Serde<Long> L = Serdes.Long();
  private static final ValueJoiner<String, String, String> PLUS = (v, t) -> v + "|" + t;

  private static KTable<String, String> versionedTable(StreamsBuilder builder) {
    return builder.table("right",
        Materialized.as(Stores.persistentVersionedKeyValueStore("vt", Duration.ofMillis(100))));
  }

  static boolean build(StreamsBuilder builder, String name) {
    switch (name) {
      case "versioned-table": {
        KTable<String, String> table = versionedTable(builder);
        table.toStream().to("out");
        table.groupBy((k, v) -> KeyValue.pair(v, k)).count().toStream().to("counts", Produced.with(S, L));
        return true;
      }
      case "temporal-inner": {
        KTable<String, String> table = versionedTable(builder);
        builder.<String, String>stream("left").join(table, PLUS).to("out");
        return true;
      }
      case "temporal-left": {
        KTable<String, String> table = versionedTable(builder);
        builder.<String, String>stream("left").leftJoin(table, PLUS).to("out");
        return true;
      }
      case "temporal-left-mapped": {
        KTable<String, String> table = versionedTable(builder)
            .filter((k, v) -> !v.equals("skip"))
            .mapValues(v -> v.toUpperCase());
        KStream<String, String> left = builder.stream("left");
        left.leftJoin(table, PLUS).to("out");
        return true;
      }
      case "temporal-grace-inner": {
        KTable<String, String> table = versionedTable(builder);
        builder.<String, String>stream("left")
            .join(table, PLUS, Joined.<String, String, String>as("gj").withGracePeriod(Duration.ofMillis(50)))
            .to("out");
        return true;
      }
      case "temporal-grace-left": {
        KTable<String, String> table = versionedTable(builder);
        builder.<String, String>stream("left")
            .leftJoin(table, PLUS, Joined.<String, String, String>as("gj").withGracePeriod(Duration.ofMillis(50)))
            .to("out");
        return true;
      }
      default:
        return false;
    }
  }
}
