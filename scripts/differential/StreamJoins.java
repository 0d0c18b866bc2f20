// The stream-stream join topologies of the differential harness (issue 13), compiled with
// Differential.java (java.ts passes this directory as javac's source path).
// packages/core/test/differential/scenarios-joins-stream.ts builds the same topologies with
// kstreams, by name. Join windows in ms.

import java.time.Duration;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.JoinWindows;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.StreamJoined;
import org.apache.kafka.streams.kstream.ValueJoiner;
import org.apache.kafka.streams.kstream.ValueJoinerWithKey;

final class StreamJoins {
  private StreamJoins() {}

  private static final ValueJoiner<String, String, String> PAIR = (l, r) -> "[" + l + ", " + r + "]";
  private static final ValueJoinerWithKey<String, String, String, String> KEYED =
      (k, l, r) -> k + ":" + l + "/" + r;

  private static JoinWindows windows(long difference, long grace) {
    return JoinWindows.ofTimeDifferenceAndGrace(Duration.ofMillis(difference), Duration.ofMillis(grace));
  }

  /** The key a re-keying topology picks: a value's first letter, null for "none" (and null values). */
  private static String rekey(String v) {
    return v == null || v.equals("none") ? null : v.substring(0, 1);
  }

  /** Adds the topology called `name` to `builder`; false when the name is not one of these. */
  static boolean build(StreamsBuilder builder, String name) {
    if (!name.startsWith("ss-")) return false;
    KStream<String, String> left = builder.stream("left");
    KStream<String, String> right = builder.stream("right");
    switch (name) {
      case "ss-docs-inner":
        left.join(right, PAIR, windows(15, 5)).to("out");
        return true;
      case "ss-docs-left":
        left.leftJoin(right, PAIR, windows(15, 5)).to("out");
        return true;
      case "ss-docs-outer":
        left.outerJoin(right, PAIR, windows(15, 5)).to("out");
        return true;
      case "ss-inner-no-grace":
        left.join(right, PAIR, JoinWindows.ofTimeDifferenceWithNoGrace(Duration.ofMillis(10))).to("out");
        return true;
      case "ss-left-grace":
        left.leftJoin(right, PAIR, windows(10, 5)).to("out");
        return true;
      case "ss-outer-grace":
        left.outerJoin(right, PAIR, windows(10, 5)).to("out");
        return true;
      case "ss-outer-no-grace":
        left.outerJoin(right, PAIR, JoinWindows.ofTimeDifferenceWithNoGrace(Duration.ofMillis(6))).to("out");
        return true;
      case "ss-outer-asymmetric":
        left.outerJoin(right, PAIR, windows(10, 3).before(Duration.ofMillis(2)).after(Duration.ofMillis(8)))
            .to("out");
        return true;
      case "ss-left-negative-before":
        // A right record joins left records 3 to 9 ms before it only.
        left.leftJoin(right, PAIR, windows(0, 4).after(Duration.ofMillis(9)).before(Duration.ofMillis(-3)))
            .to("out");
        return true;
      case "ss-inner-zero":
        left.join(right, PAIR, JoinWindows.ofTimeDifferenceWithNoGrace(Duration.ZERO)).to("out");
        return true;
      case "ss-named-left-with-key":
        left.leftJoin(
                right,
                KEYED,
                windows(10, 5),
                StreamJoined.with(Serdes.String(), Serdes.String(), Serdes.String())
                    .withName("orders-payments")
                    .withStoreName("pay"))
            .to("out");
        return true;
      case "ss-rekey-outer":
        left.selectKey((k, v) -> rekey(v))
            .outerJoin(right.selectKey((k, v) -> rekey(v)), KEYED, windows(10, 5))
            .to("out");
        return true;
      case "ss-rekey-inner-named":
        left.selectKey((k, v) -> rekey(v))
            .join(right, PAIR, windows(10, 5), StreamJoined.<String, String, String>as("st").withName("rk"))
            .to("out");
        return true;
      case "ss-rekey-self": {
        KStream<String, String> rekeyed = left.selectKey((k, v) -> rekey(v));
        rekeyed.join(rekeyed, PAIR, windows(5, 2)).to("out");
        right.to("unused");
        return true;
      }
      case "ss-rekey-twice": {
        // One repartition for both joins; the left join makes it keep null keys (KIP-962).
        KStream<String, String> rekeyed = left.selectKey((k, v) -> rekey(v));
        rekeyed.join(right, PAIR, windows(3, 0)).to("inner");
        rekeyed.leftJoin(right, KEYED, windows(10, 5)).to("out");
        return true;
      }
      case "ss-self-inner":
        left.join(left, PAIR, windows(5, 2)).to("out");
        right.to("unused");
        return true;
      case "ss-self-outer":
        left.outerJoin(left.mapValues(v -> v + "'"), PAIR, windows(5, 2)).to("out");
        right.to("unused");
        return true;
      case "ss-chained": {
        KStream<String, String> third = builder.stream("third");
        left.leftJoin(right, PAIR, windows(10, 2))
            .outerJoin(third, (lr, t) -> lr + "~" + t, windows(5, 3))
            .to("out");
        left.join(right, PAIR, windows(3, 0)).to("inner");
        return true;
      }
      default:
        throw new IllegalArgumentException("No stream-stream join topology named " + name);
    }
  }
}
