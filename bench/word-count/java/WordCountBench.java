// The word-count benchmark's Java Kafka Streams app: the WordCountDemo topology (lines split into
// lower-case words, grouped by word, counted, every count out to the output topic), with the same
// topics, serdes and store name as the kstreams app (packages/examples/src/word-count/topology.ts),
// so that its repartition topic is <applicationId>-counts-repartition as there.
//
// It speaks the Node child's protocol (bench/word-count/protocol.ts) as JSON lines: it prints
// ready / running / progress / stopped / failed on stdout and reads "start" and "stop" lines on
// stdin. Nothing else may print on stdout (slf4j-nop keeps Kafka's logging quiet).
//
// Usage: WordCountBench <brokers> <input> <output> <applicationId> <stateDir>
//          <exactly_once|at_least_once> <cache bytes, or -1 for Kafka Streams' default> <CLK_TCK>

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyDescription;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;

public final class WordCountBench {
  private static final Pattern NON_WORD = Pattern.compile("\\W+");

  private WordCountBench() {}

  /** As kstreams' wordsOf: lower-case, split on runs of non-word characters, no empty words. */
  static List<String> words(String line) {
    List<String> out = new ArrayList<>();
    for (String w : NON_WORD.split(line.toLowerCase(Locale.ROOT))) {
      if (!w.isEmpty()) out.add(w);
    }
    return out;
  }

  static Topology topology(String input, String output) {
    StreamsBuilder builder = new StreamsBuilder();
    builder
        .stream(input, Consumed.with(Serdes.String(), Serdes.String()))
        .flatMapValues(WordCountBench::words)
        .groupBy((key, word) -> word, Grouped.with(Serdes.String(), Serdes.String()))
        .count(Materialized.as("counts"))
        .toStream()
        .to(output, Produced.with(Serdes.String(), Serdes.Long()));
    return builder.build();
  }

  private static synchronized void emit(String json) {
    System.out.println(json);
    System.out.flush();
  }

  private static String quote(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') b.append('\\').append(c);
      else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
      else b.append(c);
    }
    return b.append('"').toString();
  }

  private static void fail(Throwable error) {
    java.io.StringWriter trace = new java.io.StringWriter();
    error.printStackTrace(new java.io.PrintWriter(trace));
    emit("{\"type\":\"failed\",\"error\":" + quote(trace.toString()) + "}");
  }

  /** utime and stime of this process in clock ticks (/proc/self/stat fields 14 and 15). */
  private static long[] cpuTicks() throws Exception {
    String stat = Files.readString(Path.of("/proc/self/stat"));
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return new long[] {Long.parseLong(fields[11]), Long.parseLong(fields[12])};
  }

  /** Peak resident set size in kB (VmHWM), as Node's process.resourceUsage().maxRSS. */
  private static long peakRssKb() throws Exception {
    for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
      if (line.startsWith("VmHWM:")) return Long.parseLong(line.replaceAll("[^0-9]", ""));
    }
    return -1;
  }

  /** Records processed by the stream thread, over all its tasks (input lines and repartitioned words). */
  private static long processed(KafkaStreams streams) {
    for (Map.Entry<MetricName, ? extends Metric> e : streams.metrics().entrySet()) {
      MetricName name = e.getKey();
      if (name.name().equals("process-total") && name.group().equals("stream-thread-metrics")) {
        return ((Number) e.getValue().metricValue()).longValue();
      }
    }
    return 0;
  }

  public static void main(String[] args) throws Exception {
    String brokers = args[0];
    String input = args[1];
    String output = args[2];
    String appId = args[3];
    String stateDir = args[4];
    boolean exactlyOnce = "exactly_once".equals(args[5]);
    long cacheBytes = Long.parseLong(args[6]);
    double microsPerTick = 1e6 / Long.parseLong(args[7]);

    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, appId);
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, brokers);
    props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir);
    props.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
    props.put(
        StreamsConfig.PROCESSING_GUARANTEE_CONFIG,
        exactlyOnce ? StreamsConfig.EXACTLY_ONCE_V2 : StreamsConfig.AT_LEAST_ONCE);
    // Everything else (commit interval, producer and consumer settings) stays Kafka Streams' default.
    if (cacheBytes >= 0) props.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, cacheBytes);

    Topology topology = topology(input, output);
    List<String> repartition = new ArrayList<>();
    for (TopologyDescription.Subtopology sub : topology.describe().subtopologies()) {
      for (TopologyDescription.Node node : sub.nodes()) {
        if (!(node instanceof TopologyDescription.Source)) continue;
        for (String topic : ((TopologyDescription.Source) node).topicSet()) {
          if (topic.endsWith("-repartition")) repartition.add(quote(appId + "-" + topic));
        }
      }
    }
    KafkaStreams streams = new KafkaStreams(topology, props);
    streams.setUncaughtExceptionHandler(
        error -> {
          fail(error);
          return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        });
    long[][] runningCpu = new long[1][];
    ScheduledExecutorService reporter = Executors.newSingleThreadScheduledExecutor(
        r -> {
          Thread t = new Thread(r, "bench-progress");
          t.setDaemon(true);
          return t;
        });
    long[] startedAt = new long[1];
    streams.setStateListener(
        (next, previous) -> {
          if (next != KafkaStreams.State.RUNNING || runningCpu[0] != null) return;
          try {
            runningCpu[0] = cpuTicks();
          } catch (Exception e) {
            fail(e);
            return;
          }
          emit("{\"type\":\"running\",\"startedAt\":" + startedAt[0] + ",\"runningAt\":"
              + System.currentTimeMillis() + "}");
          // The parent's "done" check under at_least_once with the cache on (see progress.ts).
          reporter.scheduleAtFixedRate(
              () -> emit("{\"type\":\"progress\",\"processed\":" + processed(streams) + "}"),
              0, 50, TimeUnit.MILLISECONDS);
        });
    emit("{\"type\":\"ready\",\"groupId\":" + quote(appId) + ",\"repartitionTopics\":" + repartition
        + ",\"topologySource\":\"bench/word-count/java/WordCountBench.java\",\"cache\":"
        + (cacheBytes == 0 ? "\"off\"" : "\"on\"") + "}");

    BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line; (line = commands.readLine()) != null; ) {
      if (line.equals("start")) {
        startedAt[0] = System.currentTimeMillis();
        streams.start();
      } else if (line.equals("stop")) {
        long[] now = cpuTicks();
        long[] from = runningCpu[0] == null ? now : runningCpu[0];
        long processed = processed(streams);
        reporter.shutdownNow();
        streams.close(Duration.ofSeconds(60));
        streams.cleanUp();
        emit("{\"type\":\"stopped\",\"maxRssKb\":" + peakRssKb()
            + ",\"cpuUserUs\":" + Math.round((now[0] - from[0]) * microsPerTick)
            + ",\"cpuSystemUs\":" + Math.round((now[1] - from[1]) * microsPerTick)
            + ",\"processed\":" + processed + "}");
        System.exit(0);
      }
    }
    // The parent went away without a stop.
    streams.close(Duration.ofSeconds(10));
    System.exit(1);
  }
}
