// The word count as a service, run with plain `node`: configured from the environment, closed
// cleanly on SIGTERM and SIGINT.
import { KafkaStreams } from '@kstreams/core';
import { wordCount } from './topology.mjs';

const env = (name) => {
  const value = process.env[name];
  if (!value) throw new Error(`set ${name}`);
  return value;
};

const app = new KafkaStreams(wordCount(env('INPUT'), env('OUTPUT')), {
  applicationId: env('APPLICATION_ID'),
  brokers: env('BROKERS').split(','),
  stateDir: env('STATE_DIR'),
  commitIntervalMs: 200,
});
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.once(signal, () => {
    app.close({ timeoutMs: 20_000 }).then((clean) => process.exit(clean ? 0 : 1));
  });
}
await app.start();
console.log('RUNNING');
