// Reads an output topic the way a Java application would: kafka-clients' KafkaConsumer,
// read_committed, every partition. A windowed topic with Kafka Streams' own windowed key
// deserializer (time windows of the size given, or session windows) and a Long value
// deserializer; `string` a topic of string keys and values (the partitioner test). Prints every
// record with its partition as JSON on stdout, so that a test can compare what Java sees with
// what kstreams wrote.
// Usage: WindowedReader <brokers> <topic> <window size in ms | session | string>

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.kstream.WindowedSerdes;

public final class WindowedReader {
  public static void main(String[] args) throws Exception {
    String brokers = args[0];
    String topic = args[1];
    boolean plain = "string".equals(args[2]);
    Deserializer<?> keys = plain
        ? new StringDeserializer()
        : "session".equals(args[2])
            ? WindowedSerdes.sessionWindowedSerdeFrom(String.class).deserializer()
            : WindowedSerdes.timeWindowedSerdeFrom(String.class, Long.parseLong(args[2])).deserializer();
    Deserializer<?> values = plain ? new StringDeserializer() : new LongDeserializer();
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, brokers);
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    ObjectMapper json = new ObjectMapper();
    ArrayNode out = json.createArrayNode();
    @SuppressWarnings("unchecked")
    KafkaConsumer<Object, Object> opened =
        new KafkaConsumer<>(props, (Deserializer<Object>) keys, (Deserializer<Object>) values);
    try (KafkaConsumer<Object, Object> consumer = opened) {
      List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
          .map(p -> new TopicPartition(topic, p.partition()))
          .collect(Collectors.toList());
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      // Under read_committed the end offsets are the last stable offsets: read up to them.
      Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
      long deadline = System.currentTimeMillis() + 60_000;
      while (partitions.stream().anyMatch(p -> consumer.position(p) < ends.get(p))) {
        if (System.currentTimeMillis() > deadline) throw new IllegalStateException("did not reach " + ends);
        for (ConsumerRecord<Object, Object> r : consumer.poll(Duration.ofMillis(500))) {
          ObjectNode row = out.addObject();
          if (plain) {
            row.put("key", (String) r.key());
            row.put("value", (String) r.value());
          } else {
            Windowed<?> key = (Windowed<?>) r.key();
            row.put("key", (String) key.key());
            row.put("start", key.window().start());
            row.put("end", key.window().end());
            if (r.value() == null) row.putNull("count");
            else row.put("count", (Long) r.value());
          }
          row.put("timestamp", r.timestamp());
          row.put("partition", r.partition());
          row.put("offset", r.offset());
        }
      }
    }
    System.out.println(json.writeValueAsString(out));
  }
}
