// A Kafka Streams application on the real broker with a versioned store (issue 39): a table on the
// input topic materialized on Stores.persistentVersionedKeyValueStore(store, history retention),
// under the application id given, so that its changelog is `<application id>-<store>-changelog`.
// Mode `restore`: the changelog was written by another application (kstreams) whose group
// committed the input's offsets, so the store's content comes from the restore alone. Mode
// `process`: a new application id; it processes the input up to the end offsets it found at start
// (committed), writing the changelog kstreams then restores. Then it answers IQv2 queries for
// each key: the latest version (VersionedKeyQuery), the version as of each timestamp given, every
// version and those of each time range given (MultiVersionedKeyQuery, ascending), and prints them
// with the number of records restored as JSON on stdout.
// Usage: VersionedStoreApp <brokers> <application id> <input topic> <store> <retention ms> <queries file> [restore|process]
// The queries file: { "keys": [...], "asOf": [timestamps...], "ranges": [[from, to]...] }.

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.File;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.processor.StateRestoreListener;
import org.apache.kafka.streams.query.MultiVersionedKeyQuery;
import org.apache.kafka.streams.query.Query;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.query.StateQueryRequest;
import org.apache.kafka.streams.query.VersionedKeyQuery;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.VersionedRecord;
import org.apache.kafka.streams.state.VersionedRecordIterator;

public final class VersionedStoreApp {
  private static final ObjectMapper JSON = new ObjectMapper();

  public static void main(String[] args) throws Exception {
    String store = args[3];
    JsonNode queries = JSON.readTree(new File(args[5]));
    File stateDir = Files.createTempDirectory("kstreams-versioned-java-").toFile();
    Properties props = new Properties();
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, args[1]);
    props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.getAbsolutePath());
    props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
    props.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
    props.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);

    StreamsBuilder builder = new StreamsBuilder();
    builder.table(
        args[2],
        Consumed.with(Serdes.String(), Serdes.String()),
        Materialized.as(Stores.persistentVersionedKeyValueStore(store, Duration.ofMillis(Long.parseLong(args[4])))));

    AtomicLong restored = new AtomicLong();
    CountDownLatch running = new CountDownLatch(1);
    KafkaStreams streams = new KafkaStreams(builder.build(), props);
    streams.setGlobalStateRestoreListener(new StateRestoreListener() {
      @Override
      public void onRestoreStart(TopicPartition partition, String name, long start, long end) {}

      @Override
      public void onBatchRestored(TopicPartition partition, String name, long end, long count) {
        restored.addAndGet(count);
      }

      @Override
      public void onRestoreEnd(TopicPartition partition, String name, long total) {}
    });
    streams.setStateListener((now, before) -> {
      if (now == KafkaStreams.State.RUNNING) running.countDown();
    });
    try {
      streams.start();
      if (!running.await(120, TimeUnit.SECONDS)) throw new IllegalStateException("not RUNNING after 120 s: " + streams.state());
      if ("process".equals(args.length > 6 ? args[6] : "restore")) awaitCommitted(streams, args[0], args[2]);
      ObjectNode out = JSON.createObjectNode();
      out.put("restored", restored.get());
      ObjectNode answers = out.putObject("answers");
      for (JsonNode k : queries.get("keys")) {
        String key = k.asText();
        ObjectNode answer = answers.putObject(key);
        answer.set("latest", record(query(streams, store, VersionedKeyQuery.<String, String>withKey(key))));
        ObjectNode asOf = answer.putObject("asOf");
        for (JsonNode t : queries.get("asOf")) {
          VersionedKeyQuery<String, String> q =
              VersionedKeyQuery.<String, String>withKey(key).asOf(Instant.ofEpochMilli(t.asLong()));
          asOf.set(t.asText(), record(query(streams, store, q)));
        }
        answer.set("versions", versions(streams, store, MultiVersionedKeyQuery.<String, String>withKey(key)));
        ObjectNode ranges = answer.putObject("ranges");
        for (JsonNode range : queries.get("ranges")) {
          MultiVersionedKeyQuery<String, String> q = MultiVersionedKeyQuery.<String, String>withKey(key)
              .fromTime(Instant.ofEpochMilli(range.get(0).asLong()))
              .toTime(Instant.ofEpochMilli(range.get(1).asLong()));
          ranges.set(range.get(0).asText() + "/" + range.get(1).asText(), versions(streams, store, q));
        }
      }
      System.out.println(JSON.writeValueAsString(out));
    } finally {
      // Leaving the group (Kafka Streams stays in it by default) lets the next application with
      // this id take the partitions at once rather than after the session timeout.
      streams.close(CloseOptions.timeout(Duration.ofSeconds(30))
          .withGroupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP));
      Utils.delete(stateDir);
    }
  }

  private static ArrayNode versions(KafkaStreams streams, String store, MultiVersionedKeyQuery<String, String> q) {
    ArrayNode versions = JSON.createArrayNode();
    try (VersionedRecordIterator<String> it = query(streams, store, q.withAscendingTimestamps())) {
      while (it.hasNext()) versions.add(record(it.next()));
    }
    return versions;
  }

  /** Waits until the input's end offsets at this time are committed (every record processed). */
  private static void awaitCommitted(KafkaStreams streams, String brokers, String topic) throws Exception {
    Map<TopicPartition, Long> ends = new HashMap<>();
    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, brokers))) {
      int partitions = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().size();
      Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
      for (int p = 0; p < partitions; p++) latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
      admin.listOffsets(latest).all().get().forEach((tp, info) -> ends.put(tp, info.offset()));
    }
    long deadline = System.currentTimeMillis() + 120_000;
    while (true) {
      Map<TopicPartition, Long> committed = new HashMap<>();
      streams.metadataForLocalThreads().forEach(thread -> thread.activeTasks()
          .forEach(task -> committed.putAll(task.committedOffsets())));
      if (ends.entrySet().stream().allMatch(e -> committed.getOrDefault(e.getKey(), -1L) >= e.getValue())) return;
      if (System.currentTimeMillis() > deadline) throw new IllegalStateException("committed " + committed + ", not " + ends);
      Thread.sleep(100);
    }
  }

  /** The answer of the one partition that holds the key (the others answer null or nothing). */
  private static <R> R query(KafkaStreams streams, String store, Query<R> query) {
    R found = null;
    for (QueryResult<R> result : streams.query(StateQueryRequest.inStore(store).withQuery(query))
        .getPartitionResults()
        .values()) {
      if (result.isFailure()) throw new IllegalStateException(result.getFailureReason() + ": " + result.getFailureMessage());
      R r = result.getResult();
      if (r == null) continue;
      // A multi-version query answers an iterator on every partition: keep the one with versions.
      if (r instanceof VersionedRecordIterator<?> it && !it.hasNext()) {
        it.close();
        continue;
      }
      found = r;
    }
    if (found == null && query instanceof MultiVersionedKeyQuery) return emptyIterator();
    return found;
  }

  @SuppressWarnings("unchecked")
  private static <R> R emptyIterator() {
    VersionedRecordIterator<String> empty = new VersionedRecordIterator<>() {
      @Override
      public void close() {}

      @Override
      public boolean hasNext() {
        return false;
      }

      @Override
      public VersionedRecord<String> next() {
        throw new java.util.NoSuchElementException();
      }
    };
    return (R) empty;
  }

  private static JsonNode record(VersionedRecord<String> r) {
    if (r == null) return JSON.nullNode();
    ObjectNode node = JSON.createObjectNode();
    node.put("value", r.value());
    node.put("timestamp", r.timestamp());
    if (r.validTo().isPresent()) node.put("validTo", r.validTo().get());
    else node.putNull("validTo");
    return node;
  }
}
