// CommonJS: require() of the ES-module packages (Node >= 20.19 loads them synchronously), then the
// word count through the TopologyTestDriver; prints the counts as JSON.
const { Serdes, StreamsBuilder } = require('@kstreams/core');
const { TopologyTestDriver } = require('@kstreams/core/testing');
const { InMemoryKeyValueStore } = require('@kstreams/state-store');
const { startHttpServer } = require('@kstreams/http');
const { runCli } = require('@kstreams/cli');

async function main() {
  for (const [name, value] of Object.entries({ InMemoryKeyValueStore, startHttpServer, runCli })) {
    if (typeof value !== 'function') throw new Error(`require() gave no ${name}`);
  }
  const builder = new StreamsBuilder();
  builder
    .stream('lines', { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    .flatMapValues((line) => line.split(' '))
    .groupBy((_key, word) => word, { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    .count({ storeName: 'counts' })
    .toStream()
    .to('counts', { keySerde: Serdes.String(), valueSerde: Serdes.Long() });
  const driver = new TopologyTestDriver(builder.build());
  try {
    await driver.createInputTopic('lines', Serdes.String(), Serdes.String()).pipeValueList(['a b', 'b c b']);
    const counts = driver.createOutputTopic('counts', Serdes.String(), Serdes.Long()).readKeyValuesToMap();
    console.log(JSON.stringify(Object.fromEntries(counts)));
  } finally {
    await driver.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
