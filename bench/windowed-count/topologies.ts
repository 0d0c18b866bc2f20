// The two topologies the windowed-count benchmark compares: the same keyed input counted per key,
// and per key and 1-minute tumbling window (Kafka Streams' default retention: size + grace).
import {
  Serdes,
  StreamsBuilder,
  TimeWindows,
  type Topology,
  WindowedSerdes,
} from '../../packages/core/src/index.ts';

export const WINDOW_MS = 60_000;

export function countTopology(input: string, output: string): Topology {
  const builder = new StreamsBuilder();
  builder
    .stream(input, { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    .groupByKey()
    .count({ storeName: 'counts' })
    .toStream()
    .to(output, { keySerde: Serdes.String(), valueSerde: Serdes.Long() });
  return builder.build();
}

export function windowedCountTopology(input: string, output: string): Topology {
  const builder = new StreamsBuilder();
  builder
    .stream(input, { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    .groupByKey()
    .windowedBy(TimeWindows.ofSizeWithNoGrace(WINDOW_MS))
    .count({ storeName: 'counts-per-minute' })
    .toStream()
    .to(output, {
      keySerde: WindowedSerdes.timeWindowedSerdeFrom(Serdes.String(), WINDOW_MS),
      valueSerde: Serdes.Long(),
    });
  return builder.build();
}
