// Reads a windowed output topic the way a Java application would: kafka-clients' KafkaConsumer,
// read_committed, Kafka Streams' own windowed key deserializer (time windows of the size given,
// or session windows) and a Long value deserializer. Prints every record as JSON on stdout, so
// that a test can compare what Java sees with what kstreams wrote.
// Usage: WindowedReader <brokers> <topic> <window size in ms | session>

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
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.kstream.WindowedSerdes;

public final class WindowedReader {
  public static void main(String[] args) throws Exception {
    String brokers = args[0];
    String topic = args[1];
    Deserializer<Windowed<String>> keys = "session".equals(args[2])
        ? WindowedSerdes.sessionWindowedSerdeFrom(String.class).deserializer()
        : WindowedSerdes.timeWindowedSerdeFrom(String.class, Long.parseLong(args[2])).deserializer();
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, brokers);
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    ObjectMapper json = new ObjectMapper();
    ArrayNode out = json.createArrayNode();
    try (KafkaConsumer<Windowed<String>, Long> consumer =
        new KafkaConsumer<>(props, keys, new LongDeserializer())) {
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
        for (ConsumerRecord<Windowed<String>, Long> r : consumer.poll(Duration.ofMillis(500))) {
          ObjectNode row = out.addObject();
          row.put("key", r.key().key());
          row.put("start", r.key().window().start());
          row.put("end", r.key().window().end());
          if (r.value() == null) row.putNull("count");
          else row.put("count", r.value());
          row.put("timestamp", r.timestamp());
          row.put("partition", r.partition());
          row.put("offset", r.offset());
        }
      }
    }
    System.out.println(json.writeValueAsString(out));
  }
}
