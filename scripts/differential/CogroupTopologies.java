// The cogroup topologies of the differential harness (issue 38, KIP-150), compiled with
// Differential.java: three grouped streams aggregated into one store, one of them re-keyed (a
// repartition topic of its own), and the windowed forms (time, sliding and session windows).
// packages/core/test/differential/scenarios-cogroup.ts builds the same topologies with kstreams.

import java.time.Duration;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Aggregator;
import org.apache.kafka.streams.kstream.CogroupedKStream;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.KGroupedStream;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.SessionWindows;
import org.apache.kafka.streams.kstream.SlidingWindows;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.kstream.Windowed;

final class CogroupTopologies {
  private CogroupTopologies() {}

  private static final Serde<String> S = Serdes.String();

  /** Appends "<tag><value>;" so that the output shows which stream each value came through. */
  private static Aggregator<String, String, String> tagged(String tag) {
    return (key, value, aggregate) -> aggregate + tag + value + ";";
  }

  /** The value's part before ':' (null for a null value: the record is then skipped). */
  private static String prefix(String key, String value) {
    return value == null ? null : value.substring(0, value.indexOf(':'));
  }

  private static String windowName(Windowed<String> key, String value) {
    return key.key() + "@" + key.window().start() + "/" + key.window().end();
  }

  /** in-a and in-b grouped by key; in-c re-keyed by the value's part before ':' (a repartition). */
  private static CogroupedKStream<String, String> three(StreamsBuilder builder, boolean twoRekeyed, String beesName) {
    KGroupedStream<String, String> a = builder.<String, String>stream("in-a").groupByKey();
    KGroupedStream<String, String> b = twoRekeyed
        ? builder.<String, String>stream("in-b")
            .selectKey(CogroupTopologies::prefix)
            .groupByKey(Grouped.as(beesName))
        : builder.<String, String>stream("in-b").groupByKey();
    KGroupedStream<String, String> c = builder.<String, String>stream("in-c")
        .selectKey(CogroupTopologies::prefix)
        .groupByKey();
    return a.cogroup(tagged("a")).cogroup(b, tagged("b")).cogroup(c, tagged("c"));
  }

  static boolean build(StreamsBuilder builder, String name) {
    switch (name) {
      case "cogroup-three":
        three(builder, false, null).aggregate(() -> "").toStream().to("out");
        return true;
      case "cogroup-named": {
        three(builder, true, "bees")
            .aggregate(() -> "", Named.as("tags"), Materialized.as("tag-store"))
            .toStream()
            .to("out");
        return true;
      }
      case "cogroup-time-windows":
        three(builder, false, null)
            .windowedBy(TimeWindows.ofSizeAndGrace(Duration.ofMillis(1000), Duration.ofMillis(200)))
            .aggregate(() -> "")
            .toStream()
            .selectKey(CogroupTopologies::windowName)
            .to("out");
        return true;
      case "cogroup-sliding-windows":
        three(builder, false, null)
            .windowedBy(SlidingWindows.ofTimeDifferenceAndGrace(Duration.ofMillis(500), Duration.ofMillis(100)))
            .aggregate(() -> "")
            .toStream()
            .selectKey(CogroupTopologies::windowName)
            .to("out");
        return true;
      case "cogroup-session-windows":
        three(builder, false, null)
            .windowedBy(SessionWindows.ofInactivityGapAndGrace(Duration.ofMillis(500), Duration.ofMillis(100)))
            .aggregate(() -> "", (key, left, right) -> left + "|" + right)
            .toStream()
            .selectKey(CogroupTopologies::windowName)
            .to("out");
        return true;
      default:
        return false;
    }
  }
}
