// The event-time topologies of the differential harness (issue 38), compiled with
// Differential.java: a TimestampExtractor reading the event time from the value ("name:time"),
// and each built-in extractor on records with a negative timestamp. The driver refuses to pipe a
// negative timestamp ("Timestamp should always be non-negative or null"), so the built-ins are
// handed the record with the value's time as its timestamp.
// packages/core/test/differential/scenarios-event-time.ts builds the same topologies with kstreams.

import java.time.Duration;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.processor.FailOnInvalidTimestamp;
import org.apache.kafka.streams.processor.LogAndSkipOnInvalidTimestamp;
import org.apache.kafka.streams.processor.TimestampExtractor;
import org.apache.kafka.streams.processor.UsePartitionTimeOnInvalidTimestamp;

final class EventTimeTopologies {
  private EventTimeTopologies() {}

  private static final Serde<String> S = Serdes.String();
  private static final Serde<Long> L = Serdes.Long();

  /** The event time after the value's ':' ("click:1500"); negative drops the record. */
  static final class ValueTime implements TimestampExtractor {
    @Override
    public long extract(ConsumerRecord<Object, Object> record, long partitionTime) {
      String value = (String) record.value();
      return Long.parseLong(value.substring(value.indexOf(':') + 1));
    }
  }

  /** A built-in given the record with the value's time as its Kafka timestamp. */
  static final class ThroughBuiltIn implements TimestampExtractor {
    private final TimestampExtractor builtIn;

    ThroughBuiltIn(TimestampExtractor builtIn) {
      this.builtIn = builtIn;
    }

    @Override
    public long extract(ConsumerRecord<Object, Object> record, long partitionTime) {
      ConsumerRecord<Object, Object> stamped = new ConsumerRecord<>(
          record.topic(), record.partition(), record.offset(),
          new ValueTime().extract(record, partitionTime), TimestampType.CREATE_TIME,
          record.serializedKeySize(), record.serializedValueSize(),
          record.key(), record.value(), record.headers(), Optional.empty());
      return builtIn.extract(stamped, partitionTime);
    }
  }

  private static KStream<String, String> through(StreamsBuilder builder, TimestampExtractor builtIn) {
    return builder.stream("in", Consumed.with(S, S).withTimestampExtractor(new ThroughBuiltIn(builtIn)));
  }

  private static String windowName(Windowed<String> key, Long value) {
    return key.key() + "@" + key.window().start() + "/" + key.window().end();
  }

  /** The records as read ("passed", with their timestamps) and a count per key ("counts"). */
  private static void passAndCount(KStream<String, String> stream) {
    stream.to("passed");
    stream.groupByKey().count().toStream().to("counts", Produced.with(S, L));
  }

  static boolean build(StreamsBuilder builder, String name) {
    switch (name) {
      case "extract-value-time": {
        KStream<String, String> events =
            builder.stream("in", Consumed.with(S, S).withTimestampExtractor(new ValueTime()));
        events.to("passed");
        events.groupByKey()
            .windowedBy(TimeWindows.ofSizeAndGrace(Duration.ofMillis(1000), Duration.ofMillis(200)))
            .count()
            .toStream()
            .selectKey(EventTimeTopologies::windowName)
            .to("out", Produced.with(S, L));
        return true;
      }
      case "invalid-fail":
        passAndCount(through(builder, new FailOnInvalidTimestamp()));
        return true;
      case "invalid-log-and-skip":
        passAndCount(through(builder, new LogAndSkipOnInvalidTimestamp()));
        return true;
      case "invalid-partition-time":
        passAndCount(through(builder, new UsePartitionTimeOnInvalidTimestamp()));
        return true;
      default:
        return false;
    }
  }
}
