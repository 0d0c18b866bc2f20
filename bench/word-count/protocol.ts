// What the benchmark process and an app's child process say to each other over the IPC channel.

/**
 * `kafkajs` and `platformatic`: the hand-written word count on kafkajs and on @platformatic/kafka.
 * `kstreams-alo-nometrics`: at_least_once with `metrics.recordingLevel: 'off'` (the others record at
 * info). `kstreams-alo` and `kstreams-eos` run kstreams' defaults (`kstreams-eos*` under
 * `exactly_once`, a transaction per task; `kstreams-eos-v2` under `exactly_once_v2`, a transaction
 * per thread, the mode the Java app runs), `*-nocache` set
 * `statestoreCacheMaxBytes: 0`; `java-*` run Kafka Streams (java/WordCountBench.java), `-cache` with
 * its default `statestore.cache.max.bytes` (10 MB), `-nocache` with 0. See variants.ts.
 */
export const APP_KINDS = [
  // Neighbours are compared (variants.ts), so that a neighbour's load on the shared machine falls
  // on both sides of a ratio alike: the hand-written app next to kstreams without cache (the same
  // work), each kstreams variant next to its Java counterpart, the hand-written app on the other
  // client next to the kafkajs one.
  'platformatic',
  'kafkajs',
  'kstreams-alo-nocache',
  'java-alo-nocache',
  'kstreams-eos-nocache',
  'java-eos-nocache',
  'kstreams-alo-nometrics',
  'kstreams-alo',
  'java-alo-cache',
  'kstreams-eos-v2',
  'kstreams-eos',
  'java-eos-cache',
  // Two processes of the app on the machine (issue 18, item 4: more than one core).
  'kstreams-eos-x2',
] as const;
export type AppKind = (typeof APP_KINDS)[number];

/** Handed to the child as its one command-line argument (JSON). */
export interface ChildArgs {
  kind: AppKind;
  brokers: string[];
  inputTopic: string;
  outputTopic: string;
  /** The kstreams applicationId, or the prefix of the hand-written app's group ids and topic. */
  appId: string;
  /** The hand-written app's intermediate topic (kstreams creates its own). */
  repartitionTopic: string;
  stateDir: string;
  /** The hand-written apps' messages per send call (0: one call per consumer batch). */
  sendChunk: number;
  /** kstreams' `statestoreCacheMaxBytes`, passed only when set (the key is newer than the app kinds). */
  statestoreCacheMaxBytes?: number;
  /** What a kstreams app runs (default: the example's word count); see bench/windowed-count.bench.ts. */
  topology?: 'word-count' | 'count' | 'windowed-count';
  /** A kstreams app's commit interval (default: its guarantee's). */
  commitIntervalMs?: number;
}

export type ParentMessage = { type: 'start' } | { type: 'stop' };

export type ChildMessage =
  /** Modules loaded and clients built; nothing has talked to Kafka yet. */
  | {
      type: 'ready';
      /** Consumer groups whose committed offsets tell the progress (exactly_once). */
      groupId: string;
      /** Topics the app consumes from, besides the input topic. */
      repartitionTopics: string[];
      topologySource: string;
      /** Whether the app runs with a record cache (then it emits one record per word and commit, not per word). */
      cache: 'on' | 'off';
    }
  /** Joined its group(s) and is about to fetch: processing starts now. */
  | { type: 'running'; startedAt: number; runningAt: number }
  /** CPU time is that of the processing window (from running to the parent's stop). */
  | {
      type: 'stopped';
      maxRssKb: number;
      cpuUserUs: number;
      cpuSystemUs: number;
      processed?: number;
      /** Records the app dropped (late for a closed window, a handler's skip); kstreams only. */
      dropped?: number;
    }
  /** Records processed so far (input lines and repartitioned words); sent every 50 ms while running. */
  | { type: 'progress'; processed: number }
  | { type: 'failed'; error: string };
