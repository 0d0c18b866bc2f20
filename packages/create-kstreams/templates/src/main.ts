// The service: the word count run by KafkaStreams with its settings from the environment, closed
// cleanly on SIGTERM (docker stop, Kubernetes) and SIGINT (Ctrl-C).
import { KafkaStreams } from '@kstreams/core';
import { configFromEnv } from './config.js';
import { wordCountTopology } from './topology.js';

function exitWith(what: string, error: unknown): never {
  console.error(`${what}: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}

const { streams, inputTopic, outputTopic } = configFromEnv(process.env);
let app: KafkaStreams;
try {
  app = new KafkaStreams(wordCountTopology(inputTopic, outputTopic), streams);
} catch (error) {
  exitWith('Bad configuration', error);
}

let closing = false;
async function close(signal: NodeJS.Signals): Promise<void> {
  // A second Ctrl-C: stop waiting (what was not committed is processed again on the next start).
  if (closing) process.exit(130);
  closing = true;
  console.log(`${signal}: closing`);
  // Commits what was processed, closes the state stores and leaves the consumer group, so that
  // another instance takes the partitions over at once.
  const clean = await app.close({ timeoutMs: 30_000 });
  process.exit(clean ? 0 : 1);
}
process.on('SIGTERM', close);
process.on('SIGINT', close);

// A stream thread that failed for good (logged by kstreams) leaves the app in ERROR: exit, so
// that whatever runs the service restarts it.
app.on('error', () => {
  void app.close().finally(() => process.exit(1));
});

try {
  await app.start();
} catch (error) {
  exitWith('Could not start', error);
}
console.log(
  `Counting the words of ${inputTopic} into ${outputTopic} (applicationId ${streams.applicationId})`,
);
