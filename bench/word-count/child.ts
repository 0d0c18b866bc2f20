// One app of the benchmark in its own process, so that its memory and CPU are its own. The
// parent says when to start (after this process has loaded its modules) and when to stop (once
// the output is complete); this process reports when it is running and what it used.
import { rm } from 'node:fs/promises';
import type { StreamsConfig } from '../../packages/core/src/index.ts';
import type { ChildArgs, ChildMessage, ParentMessage } from './protocol.ts';
import { kstreamsGuarantee } from './variants.ts';

const args = JSON.parse(process.argv[2] ?? '') as ChildArgs;

function send(message: ChildMessage): void {
  process.send?.(message);
}

interface App {
  start(onRunning: () => void): Promise<void>;
  stop(): Promise<void>;
  processed(): number | undefined;
  dropped(): number | undefined;
}

async function buildApp(): Promise<{ app: App; ready: Extract<ChildMessage, { type: 'ready' }> }> {
  if (args.kind === 'kafkajs' || args.kind === 'platformatic') {
    // kafkajs as it comes: loaded here, never after @kstreams/core (see below).
    const [hw, topologySource] =
      args.kind === 'kafkajs'
        ? [(await import('./handwritten.ts')).handWrittenWordCount(args), 'bench/word-count/handwritten.ts']
        : [
            (await import('./handwritten-platformatic.ts')).platformaticWordCount(args),
            'bench/word-count/handwritten-platformatic.ts',
          ];
    return {
      app: {
        async start(onRunning) {
          await hw.start((error) => send({ type: 'failed', error: String(error.stack ?? error) }));
          onRunning();
        },
        stop: () => hw.stop(),
        processed: () => undefined,
        dropped: () => undefined,
      },
      ready: {
        type: 'ready',
        groupId: `${args.appId}-count`,
        repartitionTopics: [args.repartitionTopic],
        topologySource,
        cache: 'off',
      },
    };
  }
  // Loaded only here, and before anything loads kafkajs: @kstreams/core changes how kafkajs
  // groups a send's messages (kafka/producer-grouping.ts); the hand-written baseline keeps
  // kafkajs as it comes.
  const { KafkaStreams } = await import('../../packages/core/src/index.ts');
  const { wordCountTopology } = await import('../../packages/examples/src/word-count/topology.ts');
  const { countTopology, windowedCountTopology } = await import('../windowed-count/topologies.ts');
  // The example's topology, so that the benchmark measures what users run.
  const [topology, source] =
    args.topology === 'count'
      ? [countTopology(args.inputTopic, args.outputTopic), 'bench/windowed-count/topologies.ts']
      : args.topology === 'windowed-count'
        ? [windowedCountTopology(args.inputTopic, args.outputTopic), 'bench/windowed-count/topologies.ts']
        : [
            wordCountTopology(args.inputTopic, args.outputTopic),
            'packages/examples/src/word-count/topology.ts',
          ];
  const config: StreamsConfig = {
    applicationId: args.appId,
    brokers: args.brokers,
    processingGuarantee: kstreamsGuarantee(args.kind),
    stateDir: args.stateDir,
    ...(args.commitIntervalMs === undefined ? {} : { commitIntervalMs: args.commitIntervalMs }),
    // BENCH_LOG_LEVEL=info: the app's rebalances and task starts, for a run that went wrong.
    logger: (process.env.BENCH_LOG_LEVEL as 'warn' | undefined) ?? 'warn',
    metrics: { recordingLevel: args.kind === 'kstreams-alo-nometrics' ? 'off' : 'info' },
  };
  const cacheBytes = args.statestoreCacheMaxBytes;
  const streams = new KafkaStreams(
    topology,
    cacheBytes === undefined ? config : { ...config, statestoreCacheMaxBytes: cacheBytes },
  );
  const repartitionTopics = topology.subtopologies(args.appId).flatMap((s) => s.repartitionSourceTopics);
  return {
    app: {
      async start(onRunning) {
        let seen = false;
        streams.on('stateChange', (next) => {
          if (next === 'RUNNING' && !seen) {
            seen = true;
            onRunning();
          }
        });
        streams.on('error', (error) => {
          send({ type: 'failed', error: String(error?.stack ?? error) });
        });
        await streams.start();
      },
      async stop() {
        await streams.close({ timeoutMs: 60_000 });
      },
      processed: () => streams.metrics().processedRecords,
      dropped: () =>
        streams
          .metadataForLocalThreads()
          .flatMap((thread) => thread.activeTasks)
          .reduce((sum, task) => sum + task.droppedRecordsTotal, 0),
    },
    ready: {
      type: 'ready',
      groupId: args.appId,
      repartitionTopics,
      topologySource: source,
      cache: cacheBytes === 0 ? 'off' : 'on',
    },
  };
}

async function main(): Promise<void> {
  const { app, ready } = await buildApp();
  let runningCpu: NodeJS.CpuUsage | undefined;
  let reporter: NodeJS.Timeout | undefined;
  let startedAt = 0;
  process.on('message', (message: ParentMessage) => {
    if (message.type === 'start') {
      startedAt = Date.now();
      app
        .start(() => {
          runningCpu = process.cpuUsage();
          send({ type: 'running', startedAt, runningAt: Date.now() });
          // The parent's "done" check under at_least_once with the cache on (see progress.ts).
          reporter = setInterval(() => {
            const processed = app.processed();
            if (processed !== undefined) send({ type: 'progress', processed });
          }, 50);
        })
        .catch((error: Error) => send({ type: 'failed', error: String(error.stack ?? error) }));
    } else if (message.type === 'stop') {
      const cpu = process.cpuUsage(runningCpu);
      clearInterval(reporter);
      const processed = app.processed();
      const dropped = app.dropped();
      void (async () => {
        await app.stop().catch((error: Error) => console.error(`stopping ${args.kind}: ${error.message}`));
        await rm(args.stateDir, { recursive: true, force: true });
        const stopped: ChildMessage = {
          type: 'stopped',
          maxRssKb: process.resourceUsage().maxRSS,
          cpuUserUs: cpu.user,
          cpuSystemUs: cpu.system,
          processed,
          dropped,
        };
        // kafkajs may keep timers alive after disconnect; the parent has what it needs.
        process.send?.(stopped, () => process.exit(0));
      })();
    }
  });
  send(ready);
}

main().catch((error: Error) => {
  send({ type: 'failed', error: String(error.stack ?? error) });
  process.exitCode = 1;
});
