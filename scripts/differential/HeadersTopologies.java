// The headers-in-state topologies of the differential harness (issue 39, KIP-1271/1285), compiled
// with Differential.java: aggregations and a table regrouped, windowed and session aggregations and
// a stream-stream join, run with dsl.store.format=HEADERS (the scenario sets it) and without, and a
// Processor API store that keeps each record's headers
// (Stores.timestampedKeyValueStoreWithHeadersBuilder). packages/core/test/differential/
// scenarios-headers.ts builds the same topologies with kstreams.

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.JoinWindows;
import org.apache.kafka.streams.kstream.KGroupedStream;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.SessionWindows;
import org.apache.kafka.streams.kstream.SlidingWindows;
import org.apache.kafka.streams.kstream.StreamJoined;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.HeadersBytesStore;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.TimestampedKeyValueStoreWithHeaders;
import org.apache.kafka.streams.state.ValueTimestampHeaders;
import org.apache.kafka.streams.state.internals.WrappedStateStore;

final class HeadersTopologies {
  private HeadersTopologies() {}

  private static final Serde<String> S = Serdes.String();
  private static final Serde<Long> L = Serdes.Long();

  /** Keeps each record's value, timestamp and headers; forwards the value with the headers kept before it. */
  private static final class KeepWithHeaders implements Processor<String, String, String, String> {
    private ProcessorContext<String, String> context;
    private TimestampedKeyValueStoreWithHeaders<String, String> store;

    @Override
    public void init(ProcessorContext<String, String> context) {
      this.context = context;
      this.store = context.getStateStore("kept");
    }

    @Override
    public void process(Record<String, String> record) {
      ValueTimestampHeaders<String> before = store.get(record.key());
      store.put(record.key(), ValueTimestampHeaders.make(record.value(), record.timestamp(), record.headers()));
      String previous = before == null ? "-" : before.value() + "@" + before.timestamp();
      context.forward(record.withValue(previous).withHeaders(before == null ? record.headers() : before.headers()));
    }
  }

  private static String windowName(Windowed<String> key, Object value) {
    return key.key() + "@" + key.window().start() + "/" + key.window().end();
  }

  static boolean build(StreamsBuilder builder, String name) {
    switch (name) {
      case "headers-windows": {
        KGroupedStream<String, String> grouped = builder.<String, String>stream("in").groupByKey();
        grouped.windowedBy(TimeWindows.ofSizeAndGrace(Duration.ofMillis(10), Duration.ofMillis(5)))
            .count(Materialized.as("win-counts"))
            .toStream()
            .selectKey(HeadersTopologies::windowName)
            .to("win-counts", Produced.with(S, L));
        grouped.windowedBy(SlidingWindows.ofTimeDifferenceAndGrace(Duration.ofMillis(5), Duration.ofMillis(5)))
            .count(Materialized.as("slide-counts"))
            .toStream()
            .selectKey(HeadersTopologies::windowName)
            .to("slide-counts", Produced.with(S, L));
        grouped.windowedBy(SessionWindows.ofInactivityGapAndGrace(Duration.ofMillis(5), Duration.ofMillis(5)))
            .reduce((a, b) -> a + "+" + b, Materialized.as("sessions"))
            .toStream()
            .selectKey(HeadersTopologies::windowName)
            .to("sessions");
        return true;
      }
      case "headers-join": {
        builder.<String, String>stream("left")
            .join(builder.<String, String>stream("right"), (a, b) -> a + "+" + b,
                JoinWindows.ofTimeDifferenceAndGrace(Duration.ofMillis(10), Duration.ofMillis(5)),
                StreamJoined.<String, String, String>as("pair"))
            .to("out");
        return true;
      }
      case "headers-left-join": {
        builder.<String, String>stream("left")
            .leftJoin(builder.<String, String>stream("right"), (a, b) -> a + "+" + b,
                JoinWindows.ofTimeDifferenceAndGrace(Duration.ofMillis(10), Duration.ofMillis(5)),
                StreamJoined.<String, String, String>as("lpair"))
            .to("out");
        return true;
      }
      case "headers-aggregations": {
        KGroupedStream<String, String> grouped = builder.<String, String>stream("in").groupByKey();
        grouped.count(Materialized.as("counts")).toStream().to("counts", Produced.with(S, L));
        grouped.reduce((a, b) -> a + "+" + b, Materialized.as("reduced")).toStream().to("reduced");
        grouped
            .aggregate(() -> 0L, (k, v, n) -> n + v.length(),
                Materialized.<String, Long, KeyValueStore<Bytes, byte[]>>as("lengths").withValueSerde(L))
            .toStream()
            .to("lengths", Produced.with(S, L));
        builder.<String, String>table("table-in", Materialized.as("t"))
            .groupBy((k, v) -> KeyValue.pair(v, k))
            .count(Materialized.as("by-value"))
            .toStream()
            .to("by-value", Produced.with(S, L));
        return true;
      }
      case "headers-processor-store": {
        builder.addStateStore(Stores.timestampedKeyValueStoreWithHeadersBuilder(
            Stores.persistentTimestampedKeyValueStoreWithHeaders("kept"), S, S));
        builder.<String, String>stream("in").process(KeepWithHeaders::new, "kept").to("out");
        return true;
      }
      default:
        return false;
    }
  }

  /** A scenario input's headers (name to UTF-8 text). */
  static RecordHeaders headers(JsonNode node) {
    RecordHeaders headers = new RecordHeaders();
    if (node == null || node.isNull()) return headers;
    node.fields().forEachRemaining(e -> headers.add(e.getKey(), e.getValue().asText().getBytes(StandardCharsets.UTF_8)));
    return headers;
  }

  /** An output record's headers as UTF-8 text (a repeated key: its last value). */
  static void putHeaders(ObjectNode node, Headers recordHeaders) {
    ObjectNode headers = node.putObject("headers");
    for (Header header : recordHeaders) {
      headers.put(header.key(), header.value() == null ? null : new String(header.value(), StandardCharsets.UTF_8));
    }
  }

  /** Which format each named store got, as records of topic 'store-format()': KIP-1285's headers-aware stores, or the default. */
  static void storeFormats(ArrayNode out, TopologyTestDriver driver, JsonNode stores) {
    for (JsonNode store : stores) {
      ObjectNode node = out.addObject();
      node.put("topic", "store-format()");
      node.put("key", store.asText());
      node.put("value", headersAware(driver.getAllStateStores().get(store.asText())) ? "HEADERS" : "DEFAULT");
      node.put("timestamp", 0);
    }
  }

  /**
   * Whether the store holds headers-aware bytes: some layer down to the bytes store is a
   * HeadersBytesStore. Not the outer type: a stream-stream join's store is a
   * TimestampedWindowStoreWithHeaders in both formats, over plain bytes in the default one.
   */
  private static boolean headersAware(StateStore store) {
    for (StateStore layer = store; layer != null; ) {
      if (layer instanceof HeadersBytesStore) return true;
      layer = layer instanceof WrappedStateStore ? ((WrappedStateStore<?, ?, ?>) layer).wrapped() : null;
    }
    return false;
  }
}
