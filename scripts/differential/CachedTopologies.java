// The record-cache topologies of the differential harness (issue 18), compiled with
// Differential.java. Their scenarios run with Kafka Streams' default cache (10 MiB):
// the driver commits after each record, so what the cache shows is how it merges the updates
// one record makes to the same key (flatMapValues before a grouped or windowed aggregation).
// packages/core/test/differential/scenarios-cache.ts builds the same topologies with kstreams.

import java.time.Duration;
import java.util.Arrays;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.KGroupedStream;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.SessionWindows;
import org.apache.kafka.streams.kstream.SlidingWindows;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.state.KeyValueStore;

final class CachedTopologies {
  private CachedTopologies() {}

  private static final Serde<String> S = Serdes.String();
  private static final Serde<Long> L = Serdes.Long();

  private static String windowName(Windowed<String> key, Long value) {
    return key.key() + "@" + key.window().start() + "/" + key.window().end();
  }

  private static KGroupedStream<String, String> words(StreamsBuilder builder) {
    return builder.<String, String>stream("in")
        .flatMapValues(v -> Arrays.asList(v.split(" ")))
        .groupByKey();
  }

  static boolean build(StreamsBuilder builder, String name) {
    switch (name) {
      case "cache-words-count":
        words(builder).count().toStream().to("out", Produced.with(S, L));
        return true;
      case "cache-words-count-uncached":
        words(builder)
            .count(Materialized.<String, Long, KeyValueStore<Bytes, byte[]>>as("uncached").withCachingDisabled())
            .toStream()
            .to("out", Produced.with(S, L));
        return true;
      case "cache-words-aggregate-deletes": {
        // "del" deletes the key's aggregate: created and deleted between two flushes, nothing is sent.
        words(builder)
            .aggregate(() -> "", (k, v, agg) -> v.equals("del") ? null : agg + v, Materialized.with(S, S))
            .toStream()
            .to("out");
        return true;
      }
      case "cache-words-windowed": {
        KGroupedStream<String, String> words = words(builder);
        words
            .windowedBy(TimeWindows.ofSizeAndGrace(Duration.ofMillis(10), Duration.ofMillis(5)))
            .count()
            .toStream()
            .selectKey(CachedTopologies::windowName)
            .to("tumbling", Produced.with(S, L));
        words
            .windowedBy(SlidingWindows.ofTimeDifferenceAndGrace(Duration.ofMillis(5), Duration.ofMillis(5)))
            .count()
            .toStream()
            .selectKey(CachedTopologies::windowName)
            .to("sliding", Produced.with(S, L));
        words
            .windowedBy(SessionWindows.ofInactivityGapAndGrace(Duration.ofMillis(5), Duration.ofMillis(5)))
            .count()
            .toStream()
            .selectKey(CachedTopologies::windowName)
            .to("sessions", Produced.with(S, L));
        return true;
      }
      case "cache-table-named":
        // A table whose store is named is queryable, so Kafka Streams caches it.
        builder.<String, String>table("in", Materialized.<String, String, KeyValueStore<Bytes, byte[]>>as("tstore"))
            .toStream()
            .to("out");
        return true;
      default:
        return false;
    }
  }
}
