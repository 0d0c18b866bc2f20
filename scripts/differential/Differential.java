// The Kafka Streams side of the differential harness: reads scenarios (a topology name, input
// records, the output topics to read) as JSON from the file named by the first argument, runs each
// through Kafka Streams' own TopologyTestDriver (without a record cache unless the scenario sets
// cacheMaxBytes), and prints the output
// records of each scenario as JSON on stdout. packages/core/test/differential/ runs the same
// scenarios through ours. The topologies here and in scenarios.ts must stay the same, by name.

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.File;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.EmitStrategy;
import org.apache.kafka.streams.kstream.GlobalKTable;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.KGroupedStream;
import org.apache.kafka.streams.kstream.KGroupedTable;
import org.apache.kafka.streams.kstream.KTable;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.Suppressed;
import org.apache.kafka.streams.kstream.Suppressed.BufferConfig;
import org.apache.kafka.streams.kstream.TimeWindowedKStream;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.test.TestRecord;

public final class Differential {
  private static final Serde<String> S = Serdes.String();
  private static final Serde<Long> L = Serdes.Long();

  private static Topology topology(String name) {
    StreamsBuilder builder = new StreamsBuilder();
    switch (name) {
      case "stateless":
        builder.<String, String>stream("in")
            .filter((k, v) -> !"skip".equals(v))
            .mapValues(v -> v.toUpperCase())
            .flatMapValues(v -> Arrays.asList(v.split(" ")))
            .map((k, v) -> KeyValue.pair(v, k))
            .to("out");
        break;
      case "group-by-count":
        builder.<String, String>stream("in")
            .groupBy((k, v) -> v)
            .count()
            .toStream()
            .to("out", Produced.with(S, L));
        break;
      case "tumbling-count":
        windowedCount(builder, TimeWindows.ofSizeWithNoGrace(Duration.ofMillis(10)));
        break;
      case "tumbling-grace-count":
        windowedCount(builder, TimeWindows.ofSizeAndGrace(Duration.ofMillis(10), Duration.ofMillis(5)));
        break;
      case "hopping-count":
        windowedCount(
            builder,
            TimeWindows.ofSizeAndGrace(Duration.ofMillis(10), Duration.ofMillis(2)).advanceBy(Duration.ofMillis(5)));
        break;
      case "windowed-reduce-aggregate": {
        TimeWindowedKStream<String, String> windowed = builder.<String, String>stream("in")
            .groupByKey()
            .windowedBy(TimeWindows.ofSizeWithNoGrace(Duration.ofMillis(10)));
        windowed.reduce((a, b) -> a + "+" + b).toStream().selectKey(Differential::windowName).to("reduced");
        windowed
            .aggregate(() -> 0L, (k, v, total) -> total + (v == null ? 100 : v.length()), Materialized.with(S, L))
            .toStream()
            .selectKey(Differential::windowName)
            .to("lengths", Produced.with(S, L));
        break;
      }
      case "named-count-changelog":
        builder.<String, String>stream("in")
            .groupByKey()
            .count(Materialized.as("counts"))
            .toStream()
            .to("out", Produced.with(S, L));
        break;
      case "group-by-key-aggregations": {
        KGroupedStream<String, String> grouped = builder.<String, String>stream("in").groupByKey();
        grouped.count().toStream().to("counts", Produced.with(S, L));
        grouped.reduce((a, b) -> a + "+" + b).toStream().to("reduced");
        grouped
            .aggregate(() -> 0L, (k, v, agg) -> agg + v.length(), Materialized.with(S, L))
            .toStream()
            .to("lengths", Produced.with(S, L));
        break;
      }
      case "select-key-count":
        builder.<String, String>stream("in")
            .selectKey((k, v) -> v.equals("none") ? null : v.substring(0, 1))
            .groupByKey()
            .count()
            .toStream()
            .to("out", Produced.with(S, L));
        break;
      case "repartition":
        builder.<String, String>stream("in")
            .selectKey((k, v) -> v.equals("none") ? null : v)
            .repartition()
            .to("out");
        break;
      case "to-table":
        builder.<String, String>stream("in").toTable().toStream().to("out");
        break;
      case "table-source":
        builder.<String, String>table("in").toStream().to("out");
        break;
      case "table-filter-map-values":
        builder.<String, String>table("in")
            .filter((k, v) -> v.length() > 2)
            .mapValues(v -> v + "!")
            .toStream()
            .to("out");
        break;
      case "table-filter-shared": {
        // A re-grouping downstream makes the filter send old values, for its other child too.
        KTable<String, String> filtered = builder.<String, String>table("in").filter((k, v) -> v.length() > 2);
        filtered.toStream().to("out");
        filtered.groupBy((k, v) -> KeyValue.pair(v, k)).count().toStream().to("counts", Produced.with(S, L));
        break;
      }
      case "table-group-by-count":
        builder.<String, String>table("in")
            .groupBy((k, v) -> KeyValue.pair(v, k))
            .count()
            .toStream()
            .to("out", Produced.with(S, L));
        break;
      case "table-group-by-sums": {
        KGroupedTable<String, Long> grouped = builder.<String, String>table("in")
            .groupBy(
                (k, v) -> KeyValue.pair(v.split(":")[0], Long.parseLong(v.split(":")[1])),
                Grouped.with(S, L));
        grouped.reduce((a, b) -> a + b, (a, b) -> a - b, Materialized.with(S, L))
            .toStream()
            .to("reduced", Produced.with(S, L));
        grouped.aggregate(() -> 0L, (k, v, a) -> a + v, (k, v, a) -> a - v, Materialized.with(S, L))
            .toStream()
            .to("aggregated", Produced.with(S, L));
        break;
      }
      // Sliding and session windows (packages/core/test/differential/scenarios-sliding-session.ts).
      case "sliding-count":
        builder.<String, String>stream("in")
            .groupByKey()
            .windowedBy(org.apache.kafka.streams.kstream.SlidingWindows.ofTimeDifferenceWithNoGrace(Duration.ofMillis(10)))
            .count()
            .toStream()
            .selectKey(Differential::windowName)
            .to("out", Produced.with(S, L));
        break;
      case "sliding-grace-reduce-aggregate": {
        TimeWindowedKStream<String, String> sliding = builder.<String, String>stream("in")
            .groupByKey()
            .windowedBy(org.apache.kafka.streams.kstream.SlidingWindows.ofTimeDifferenceAndGrace(
                Duration.ofMillis(10), Duration.ofMillis(5)));
        sliding.reduce((a, b) -> a + "+" + b).toStream().selectKey(Differential::windowName).to("reduced");
        sliding
            .aggregate(() -> 0L, (k, v, total) -> total + v.length(), Materialized.with(S, L))
            .toStream()
            .selectKey(Differential::windowName)
            .to("lengths", Produced.with(S, L));
        break;
      }
      case "session-count":
        builder.<String, String>stream("in")
            .groupByKey()
            .windowedBy(org.apache.kafka.streams.kstream.SessionWindows.ofInactivityGapWithNoGrace(Duration.ofMillis(5)))
            .count()
            .toStream()
            .selectKey(Differential::windowName)
            .to("out", Produced.with(S, L));
        break;
      case "session-grace-aggregations": {
        org.apache.kafka.streams.kstream.SessionWindowedKStream<String, String> sessions =
            builder.<String, String>stream("in")
                .groupByKey()
                .windowedBy(org.apache.kafka.streams.kstream.SessionWindows.ofInactivityGapAndGrace(
                    Duration.ofMillis(5), Duration.ofMillis(3)));
        sessions.count().toStream().selectKey(Differential::windowName).to("counts", Produced.with(S, L));
        sessions.reduce((a, b) -> a + "+" + b).toStream().selectKey(Differential::windowName).to("reduced");
        sessions
            .aggregate(
                () -> 0L,
                (k, v, total) -> total + (v == null ? 100 : v.length()),
                (k, a, b) -> a * 1000 + b,
                Materialized.with(S, L))
            .toStream()
            .selectKey(Differential::windowName)
            .to("lengths", Produced.with(S, L));
        break;
      }
      case "session-docs-example":
        builder.<String, String>stream("in")
            .groupByKey()
            .windowedBy(org.apache.kafka.streams.kstream.SessionWindows.ofInactivityGapWithNoGrace(Duration.ofMinutes(5)))
            .count()
            .toStream()
            .selectKey(Differential::windowName)
            .to("out", Produced.with(S, L));
        break;
      case "session-docs-example-retention":
        builder.<String, String>stream("in")
            .groupByKey()
            .windowedBy(org.apache.kafka.streams.kstream.SessionWindows.ofInactivityGapWithNoGrace(Duration.ofMinutes(5)))
            .count(Materialized.<String, Long, org.apache.kafka.streams.state.SessionStore<org.apache.kafka.common.utils.Bytes, byte[]>>with(S, L)
                .withRetention(Duration.ofMinutes(10)))
            .toStream()
            .selectKey(Differential::windowName)
            .to("out", Produced.with(S, L));
        break;
      case "session-merge-same-bounds": {
        // Issue 38: a record inside a session (the merged window keeps its bounds) still removes
        // the old session, with a tombstone, before the merged result.
        org.apache.kafka.streams.kstream.SessionWindowedKStream<String, String> sessions = builder.<String, String>stream("in")
            .groupByKey()
            .windowedBy(org.apache.kafka.streams.kstream.SessionWindows.ofInactivityGapAndGrace(
                Duration.ofSeconds(15), Duration.ofSeconds(5)));
        sessions.count().toStream().selectKey(Differential::windowName).to("out", Produced.with(S, L));
        sessions.reduce((a, b) -> a + "+" + b).toStream().selectKey(Differential::windowName).to("reduced");
        break;
      }
      // End of sliding and session windows.
      default:
        if (suppression(builder, name)
            || tableJoins(builder, name)
            || foreignKeyJoins(builder, name)
            || StreamJoins.build(builder, name)
            || CachedTopologies.build(builder, name)
            || EventTimeTopologies.build(builder, name)
            || PartitionerTopologies.build(builder, name)
            || CogroupTopologies.build(builder, name)
            || PatternTopologies.build(builder, name)
            || VersionedTopologies.build(builder, name)
            || HeadersTopologies.build(builder, name)) break;
        throw new IllegalArgumentException("No topology named " + name);
    }
    return builder.build();
  }

  private static String windowName(Windowed<String> key, Object value) {
    return key.key() + "@" + key.window().start() + "/" + key.window().end();
  }

  private static void windowedCount(StreamsBuilder builder, TimeWindows windows) {
    builder.<String, String>stream("in")
        .groupByKey()
        .windowedBy(windows)
        .count()
        .toStream()
        .selectKey(Differential::windowName)
        .to("out", Produced.with(S, L));
  }

  // Suppression and emit-on-window-close (issue 12); scenarios-suppress.ts has the same topologies.
  // Windowed tables get explicit serdes: the suppression buffer serializes the windowed key.
  private static boolean suppression(StreamsBuilder builder, String name) {
    switch (name) {
      case "suppress-tumbling-final":
        finalCounts(builder, TimeWindows.ofSizeAndGrace(Duration.ofMillis(10), Duration.ofMillis(5)));
        return true;
      case "suppress-hopping-final":
        finalCounts(
            builder,
            TimeWindows.ofSizeAndGrace(Duration.ofMillis(10), Duration.ofMillis(2)).advanceBy(Duration.ofMillis(5)));
        return true;
      case "suppress-final-filter":
        builder.<String, String>stream("in")
            .groupByKey()
            .windowedBy(TimeWindows.ofSizeAndGrace(Duration.ofMillis(10), Duration.ofMillis(3)))
            .count(Materialized.with(S, L))
            .suppress(Suppressed.untilWindowCloses(BufferConfig.unbounded()).withName("finals"))
            .filter((k, count) -> count < 3)
            .toStream()
            .selectKey(Differential::windowName)
            .to("out", Produced.with(S, L));
        return true;
      case "suppress-time-limit-max-records":
        builder.<String, String>table("in")
            .groupBy((k, v) -> KeyValue.pair(v, k))
            .count()
            .suppress(Suppressed.untilTimeLimit(Duration.ofMillis(5), BufferConfig.maxRecords(2).emitEarlyWhenFull()))
            .toStream()
            .to("out", Produced.with(S, L));
        return true;
      case "suppress-time-limit-table":
        builder.<String, String>table("in")
            .suppress(Suppressed.untilTimeLimit(Duration.ofMillis(3), BufferConfig.maxRecords(3)))
            .toStream()
            .to("out");
        return true;
      case "suppress-time-limit-max-bytes":
        builder.<String, String>table("in")
            .filter((k, v) -> !"drop".equals(v))
            .suppress(Suppressed.untilTimeLimit(Duration.ofMillis(20), BufferConfig.maxBytes(110).emitEarlyWhenFull()))
            .toStream()
            .to("out");
        return true;
      case "emit-on-window-close":
        builder.<String, String>stream("in")
            .groupByKey()
            .windowedBy(TimeWindows.ofSizeAndGrace(Duration.ofMillis(10), Duration.ofMillis(2)).advanceBy(Duration.ofMillis(5)))
            .emitStrategy(EmitStrategy.onWindowClose())
            // With the default retention (size + grace) the store may expire a window before it
            // is read at its close (when stream time jumps); a longer one keeps every window.
            .count(Materialized.<String, Long, WindowStore<Bytes, byte[]>>with(S, L).withRetention(Duration.ofMillis(100)))
            .toStream()
            .selectKey(Differential::windowName)
            .to("out", Produced.with(S, L));
        return true;
      default:
        return false;
    }
  }

  private static void finalCounts(StreamsBuilder builder, TimeWindows windows) {
    builder.<String, String>stream("in")
        .groupByKey()
        .windowedBy(windows)
        .count(Materialized.with(S, L))
        .suppress(Suppressed.untilWindowCloses(BufferConfig.unbounded()))
        .toStream()
        .selectKey(Differential::windowName)
        .to("out", Produced.with(S, L));
  }
  // End of the suppression block.

  // stream-table, table-table and global joins (issue 13); scenarios-joins-table.ts has the same
  // topologies. Key selectors are null-safe: a null-value record reaches them before it is dropped.
  private static final org.apache.kafka.streams.kstream.ValueJoiner<String, String, String> PAIR =
      (l, r) -> "[" + l + ", " + r + "]";
  private static final org.apache.kafka.streams.kstream.ValueJoiner<String, String, String> PLUS =
      (v, t) -> v + "|" + t;
  private static final org.apache.kafka.streams.kstream.ValueJoinerWithKey<String, String, String, String> SLASHED =
      (k, v, t) -> k + "/" + v + "/" + t;

  private static String joinKey(String v) {
    return v == null || v.equals("none") ? null : v.substring(0, Math.min(2, v.length()));
  }

  private static boolean tableJoins(StreamsBuilder builder, String name) {
    switch (name) {
      case "st-inner": {
        KTable<String, String> table = builder.table("right");
        builder.<String, String>stream("left").join(table, PLUS).to("out");
        return true;
      }
      case "st-left": {
        KTable<String, String> table = builder.table("right");
        builder.<String, String>stream("left").leftJoin(table, PLUS).to("out");
        return true;
      }
      case "st-rekey-left-getters": {
        KTable<String, String> table = builder.<String, String>table("right")
            .filter((k, v) -> v.length() > 1)
            .mapValues(v -> v.toUpperCase());
        builder.<String, String>stream("left")
            .selectKey((k, v) -> joinKey(v))
            .leftJoin(table, SLASHED)
            .to("out");
        return true;
      }
      case "st-rekey-inner": {
        KTable<String, String> table = builder.table("right");
        builder.<String, String>stream("left").selectKey((k, v) -> joinKey(v)).join(table, PLUS).to("out");
        return true;
      }
      case "tt-inner":
        builder.<String, String>table("left").join(builder.<String, String>table("right"), PAIR).toStream().to("out");
        return true;
      case "tt-left":
        builder.<String, String>table("left").leftJoin(builder.<String, String>table("right"), PAIR).toStream().to("out");
        return true;
      case "tt-outer":
        builder.<String, String>table("left").outerJoin(builder.<String, String>table("right"), PAIR).toStream().to("out");
        return true;
      case "tt-left-regroup-count": {
        KTable<String, String> joined =
            builder.<String, String>table("left").leftJoin(builder.<String, String>table("right"), PAIR);
        joined.toStream().to("out");
        joined.groupBy((k, v) -> KeyValue.pair(v, k)).count().toStream().to("counts", Produced.with(S, L));
        return true;
      }
      case "tt-outer-regroup-count":
        builder.<String, String>table("left")
            .outerJoin(builder.<String, String>table("right"), PAIR)
            .groupBy((k, v) -> KeyValue.pair(v.length() > 8 ? "long" : "short", k))
            .count()
            .toStream()
            .to("counts", Produced.with(S, L));
        return true;
      case "tt-filter-left-map-right": {
        KTable<String, String> l = builder.<String, String>table("left").filter((k, v) -> !"x".equals(v));
        KTable<String, String> r = builder.<String, String>table("right").mapValues(v -> v + "!");
        l.leftJoin(r, PAIR).toStream().to("out");
        return true;
      }
      case "tt-chain": {
        KTable<String, String> l = builder.table("left");
        KTable<String, String> r = builder.table("right");
        KTable<String, String> third = builder.table("third");
        l.outerJoin(r, PAIR, Materialized.<String, String, KeyValueStore<Bytes, byte[]>>as("joined"))
            .join(third, (a, c) -> a + "+" + c)
            .toStream()
            .to("out");
        l.join(r, PAIR).leftJoin(third, (a, c) -> a + "~" + c).toStream().to("chained");
        return true;
      }
      case "global-inner": {
        GlobalKTable<String, String> table = builder.globalTable("right");
        builder.<String, String>stream("left").join(table, (k, v) -> joinKey(v), PLUS).to("out");
        return true;
      }
      case "global-left": {
        GlobalKTable<String, String> table = builder.globalTable("right");
        builder.<String, String>stream("left").leftJoin(table, (k, v) -> joinKey(v), SLASHED).to("out");
        return true;
      }
      default:
        return false;
    }
  }
  // End of the stream-table, table-table and global joins block.

  // Foreign-key joins (KIP-213); scenarios-joins-fk.ts has the same topologies. Left values are
  // "<foreign key>:<anything>", "none..." for a null foreign key.
  private static String fk(String v) {
    return v.startsWith("none") ? null : v.split(":")[0];
  }

  private static boolean foreignKeyJoins(StreamsBuilder builder, String name) {
    switch (name) {
      case "fk-inner": {
        KTable<String, String> r = builder.table("right");
        builder.<String, String>table("left").join(r, Differential::fk, PLUS).toStream().to("out");
        return true;
      }
      case "fk-left": {
        KTable<String, String> r = builder.table("right");
        builder.<String, String>table("left").leftJoin(r, Differential::fk, PLUS).toStream().to("out");
        return true;
      }
      case "fk-key-extractor": {
        KTable<String, String> r = builder.table("right");
        builder.<String, String>table("left")
            .join(r, (k, v) -> k.equals("o4") ? null : fk(v), PLUS)
            .toStream()
            .to("out");
        return true;
      }
      case "fk-named-materialized-regroup": {
        KTable<String, String> r = builder.table("right");
        KTable<String, String> joined = builder.<String, String>table("left").leftJoin(
            r,
            Differential::fk,
            PLUS,
            org.apache.kafka.streams.kstream.TableJoined.as("fkj"),
            Materialized.<String, String, KeyValueStore<Bytes, byte[]>>as("fk-result"));
        joined.toStream().to("out");
        joined.groupBy((k, v) -> KeyValue.pair(v.substring(v.indexOf('|') + 1), k))
            .count()
            .toStream()
            .to("counts", Produced.with(S, L));
        return true;
      }
      case "fk-self": {
        KTable<String, String> t = builder.table("left");
        t.leftJoin(t, Differential::fk, PLUS).toStream().to("out");
        return true;
      }
      case "fk-getters-chain": {
        KTable<String, String> r = builder.<String, String>table("right")
            .filter((k, v) -> !v.equals("x"))
            .mapValues(v -> v.toUpperCase());
        KTable<String, String> third = builder.table("third");
        builder.<String, String>table("left")
            .mapValues(v -> v + "!")
            .join(r, Differential::fk, PLUS)
            .leftJoin(third, PAIR)
            .toStream()
            .to("out");
        return true;
      }
      default:
        return false;
    }
  }
  // End of the foreign-key joins block.

  // A state directory of this JVM's own: Kafka Streams' default (/tmp/kafka-streams) is shared by
  // every run on the machine, and two runs at once delete each other's task folders.
  private static final String STATE_DIR = stateDir();

  private static String stateDir() {
    try {
      File dir = java.nio.file.Files.createTempDirectory("kstreams-differential-").toFile();
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    try {
                      org.apache.kafka.common.utils.Utils.delete(dir);
                    } catch (java.io.IOException ignored) {
                      // A temporary folder left behind is harmless.
                    }
                  }));
      return dir.getAbsolutePath();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static Properties config(long cacheMaxBytes, String dslStoreFormat) {
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, "differential");
    props.put(StreamsConfig.STATE_DIR_CONFIG, STATE_DIR);
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
    props.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
    props.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
    // No record cache (every update is forwarded) unless the scenario asks for one.
    props.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, cacheMaxBytes);
    // KIP-1285's opt-in, when the scenario sets it.
    if (dslStoreFormat != null) props.put(StreamsConfig.DSL_STORE_FORMAT_CONFIG, dslStoreFormat);
    return props;
  }

  private static ArrayNode run(ObjectMapper json, JsonNode scenario) {
    ArrayNode out = json.createArrayNode();
    Topology topology = topology(scenario.get("topology").asText());
    if (scenario.path("describe").asBoolean(false)) {
      // The topology's description as one more "record", compared like the others.
      ObjectNode node = out.addObject();
      node.put("topic", "describe()");
      node.putNull("key");
      node.put("value", topology.describe().toString());
      node.put("timestamp", 0);
    }
    try (TopologyTestDriver driver = new TopologyTestDriver(topology, config(scenario.path("cacheMaxBytes").asLong(0), text(scenario.get("dslStoreFormat"))), Instant.EPOCH)) {
      Map<String, TestInputTopic<String, String>> inputs = new HashMap<>();
      // EmitStrategy.onWindowClose reads closed windows at most once a second of wall clock, and
      // so do left and outer stream-stream joins for their null-joins; kstreams reads whenever a
      // window has closed (no throttle), so a second passes per record.
      String topologyName = scenario.get("topology").asText();
      boolean emitOnClose = topologyName.startsWith("emit-") || topologyName.startsWith("ss-");
      // An input that fails the task (an invalid timestamp) ends the scenario: the records before
      // it are read, then one "error()" record names the input.
      int index = 0;
      Integer failedAt = null;
      for (JsonNode record : scenario.get("inputs")) {
        String topic = record.get("topic").asText();
        TestInputTopic<String, String> input = inputs.computeIfAbsent(
            topic, t -> driver.createInputTopic(t, S.serializer(), S.serializer()));
        if (emitOnClose) driver.advanceWallClockTime(Duration.ofSeconds(1));
        try {
          input.pipeInput(new TestRecord<>(
              text(record.get("key")), text(record.get("value")), HeadersTopologies.headers(record.get("headers")),
              record.get("timestamp").asLong()));
        } catch (RuntimeException e) {
          failedAt = index;
          break;
        }
        index++;
      }
      for (JsonNode output : scenario.get("outputs")) {
        String topic = output.get("topic").asText();
        String kind = output.get("value").asText();
        boolean isLong = kind.equals("long");
        // "hex": the bytes as they are, for the internal topics' wire formats.
        Deserializer<?> values = isLong
            ? L.deserializer()
            : kind.equals("hex") ? Serdes.ByteArray().deserializer() : S.deserializer();
        TestOutputTopic<String, ?> topicReader = driver.createOutputTopic(topic, S.deserializer(), values);
        for (TestRecord<String, ?> record : topicReader.readRecordsToList()) {
          ObjectNode node = out.addObject();
          node.put("topic", topic);
          node.put("key", record.key());
          Object value = record.value();
          if (value == null) node.putNull("value");
          else if (value instanceof Long) node.put("value", (Long) value);
          else if (value instanceof byte[]) node.put("value", java.util.HexFormat.of().formatHex((byte[]) value));
          else node.put("value", (String) value);
          node.put("timestamp", record.timestamp());
          if (output.path("headers").asBoolean(false)) HeadersTopologies.putHeaders(node, record.headers());
        }
      }
      HeadersTopologies.storeFormats(out, driver, scenario.path("storeFormats"));
      if (failedAt != null) {
        ObjectNode node = out.addObject();
        node.put("topic", "error()");
        node.putNull("key");
        node.put("value", "input " + failedAt + " failed");
        node.put("timestamp", 0);
      }
    }
    return out;
  }

  private static String text(JsonNode node) {
    return node == null || node.isNull() ? null : node.asText();
  }

  public static void main(String[] args) throws Exception {
    ObjectMapper json = new ObjectMapper();
    ObjectNode results = json.createObjectNode();
    for (JsonNode scenario : json.readTree(new File(args[0]))) {
      results.set(scenario.get("name").asText(), run(json, scenario));
    }
    System.out.println(json.writeValueAsString(results));
  }
}
