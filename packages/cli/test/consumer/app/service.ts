// The word count as a strict TypeScript service: compiled by tsc (moduleResolution node16 and
// bundler, skipLibCheck off so that the packages' .d.ts are checked too) and run with `node`.
import { KafkaStreams, Serdes, StreamsBuilder, type Topology } from '@kstreams/core';

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`set ${name}`);
  return value;
}

function wordCount(input: string, output: string): Topology {
  const builder = new StreamsBuilder();
  builder
    .stream(input, { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    .flatMapValues((line: string): string[] => line.toLowerCase().split(/\W+/).filter(Boolean))
    .groupBy((_key: string | null, word: string) => word, {
      keySerde: Serdes.String(),
      valueSerde: Serdes.String(),
    })
    .count({ storeName: 'counts' })
    .toStream()
    .to(output, { keySerde: Serdes.String(), valueSerde: Serdes.Long() });
  return builder.build();
}

const app = new KafkaStreams(wordCount(env('INPUT'), env('OUTPUT')), {
  applicationId: env('APPLICATION_ID'),
  brokers: env('BROKERS').split(','),
  stateDir: env('STATE_DIR'),
  commitIntervalMs: 200,
});
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    void app.close({ timeoutMs: 20_000 }).then((clean: boolean) => process.exit(clean ? 0 : 1));
  });
}
await app.start();
console.log('RUNNING');
