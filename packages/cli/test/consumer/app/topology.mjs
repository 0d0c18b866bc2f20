// A word count in plain JavaScript against the installed packages; `kstreams describe` loads it.
import { Serdes, StreamsBuilder } from '@kstreams/core';

export function wordCount(input, output) {
  const builder = new StreamsBuilder();
  builder
    .stream(input, { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    .flatMapValues((line) => line.toLowerCase().split(/\W+/).filter(Boolean))
    .groupBy((_key, word) => word, { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    .count({ storeName: 'counts' })
    .toStream()
    .to(output, { keySerde: Serdes.String(), valueSerde: Serdes.Long() });
  return builder.build();
}

export default () => wordCount('lines', 'word-counts');
