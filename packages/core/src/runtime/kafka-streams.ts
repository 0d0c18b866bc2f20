// The application: validates the config, creates the internal topics, runs the stream thread,
// reports its state, and decides what a fatal error does.
import { EventEmitter } from 'node:events';
import type { StateRestoreListener } from '@kstreams/state-store';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { checkStateDir } from '../config/state-dir.ts';
import { type ResolvedConfig, resolveStreamsConfig, type StreamsConfig } from '../config/streams-config.ts';
import { IllegalStateError, StreamsError } from '../errors.ts';
import { StreamsAdmin } from '../kafka/admin.ts';
import { toAuthorizationError } from '../kafka/authorization.ts';
import { type BrokerConnectivitySnapshot, connectivityOf } from '../kafka/broker-connectivity.ts';
import { createKafka, type Kafka } from '../kafka/client.ts';
import { kafkajsCapabilities } from '../kafka/kafkajs-patches.ts';
import { StreamsMetricsRecorder } from '../metrics/streams-metrics-recorder.ts';
import type { StreamPartitioner } from '../processor/stream-partitioner.ts';
import type { Topology } from '../processor/topology.ts';
import type { StateQueryRequest, StateQueryResult } from '../query/results.ts';
import type { Serde } from '../serdes/serde.ts';
import { type AppMetricsSources, appMetrics, appMetricsRegistry } from './app-metrics.ts';
import { GlobalStreamThread } from './global-stream-thread.ts';
import { applyHeapGrowth } from './heap-growth.ts';
import {
  type KeyQueryMetadata,
  KeyQueryResolver,
  type QueryableStoreType,
  type QueryDeps,
  type ReadOnlyKeyValueStore,
  readOnlySessionStoreAcrossTasks,
  readOnlyStore,
  readOnlyWindowStore,
  type StoreQueryParameters,
} from './interactive-queries.ts';
import {
  type CloseOptions,
  finishesWithin,
  type KafkaStreamsEvents,
  type KafkaStreamsState,
  type StreamsMetadata,
  TRANSITIONS,
} from './kafka-streams-state.ts';
import { allStreamsClients, localThreadMetadata, type ThreadMetadata } from './local-metadata.ts';
import { newMetrics, type StreamsMetrics } from './metrics.ts';
import { PatternTopicRefresh } from './pattern-refresh.ts';
import { prepareTopics } from './prepare-topics.ts';
import { initSerdes } from './serde-init.ts';
import { StateDirectory } from './state-directory.ts';
import { queryLocalStores, type StateQueryOptions } from './state-query.ts';
import { StreamThread } from './stream-thread.ts';
import { askUncaughtHandler, type StreamsUncaughtExceptionHandler } from './uncaught-exceptions.ts';

export type {
  CloseOptions,
  KafkaStreamsEvents,
  KafkaStreamsState,
  StreamsMetadata,
  StreamsUncaughtExceptionHandler,
  StreamThreadExceptionResponse,
} from './kafka-streams-state.ts';

export class KafkaStreams extends EventEmitter<KafkaStreamsEvents> {
  readonly config: ResolvedConfig;
  private readonly logger: Logger;
  private readonly kafka: Kafka;
  private readonly admin: StreamsAdmin;
  private readonly metricsValues: StreamsMetrics = newMetrics();
  private readonly recorder: StreamsMetricsRecorder;
  /** Made when first asked for: prom-client loads then, not at every start. */
  private readonly registry: () => Registry;
  private readonly metricsSources: AppMetricsSources;
  /** Kafka Streams' thread name: `<clientId>-StreamThread-1` (one thread per app here). */
  readonly threadName: string;
  private thread?: StreamThread;
  /** Keeps the global stores (GlobalKTables), if the topology has any. */
  private globalThread?: GlobalStreamThread;
  /** Pattern sources: lists the cluster's topics every metadataMaxAgeMs (undefined without them). */
  private patternRefresh?: PatternTopicRefresh;
  private currentState: KafkaStreamsState = 'CREATED';
  private uncaughtHandler: StreamsUncaughtExceptionHandler = () => 'SHUTDOWN_CLIENT';
  private restoreListener?: StateRestoreListener;
  private lastError?: Error;
  private closing?: Promise<void>;
  private readonly queries: QueryDeps;
  private readonly keyResolver: KeyQueryResolver;
  private readonly stateDirectory: StateDirectory;

  constructor(
    readonly topology: Topology,
    config: StreamsConfig,
  ) {
    super();
    this.config = resolveStreamsConfig(config);
    topology.internalBuilder.applyDslStoreFormat(this.config.dslStoreFormat);
    topology.validate();
    // As Kafka Streams' StateDirectory: before anything reaches the broker, so that a bad state
    // directory leaves no topics behind.
    checkStateDir(this.config.stateDir);
    this.logger = this.config.logger.child({ applicationId: this.config.applicationId });
    this.stateDirectory = new StateDirectory(this.config.stateDir, this.config.applicationId, this.logger);
    this.kafka = createKafka(this.config);
    this.admin = new StreamsAdmin(this.kafka);
    this.queries = {
      config: this.config,
      topology,
      admin: this.admin,
      tasks: () => this.thread?.runningTasks() ?? [],
      standbyTasks: () => this.thread?.standbyTasks() ?? [],
      globalStore: (name) => this.globalThread?.store(name),
    };
    this.keyResolver = new KeyQueryResolver(this.queries);
    this.threadName = `${this.config.clientId}-StreamThread-1`;
    this.recorder = new StreamsMetricsRecorder(this.config.metricsRecordingLevel);
    this.metricsSources = {
      applicationId: this.config.applicationId,
      threadName: this.threadName,
      recorder: this.recorder,
      values: this.metricsValues,
      state: () => this.currentState,
      runningTasks: () => this.thread?.runningTasks() ?? [],
      localThreads: () => this.metadataForLocalThreads(),
    };
    this.registry = appMetricsRegistry(this.metricsSources);
  }

  /**
   * The app's Prometheus registry (prom-client), in Kafka Streams' metric names; serve
   * `await registry.metrics()` or merge it into yours with `Registry.merge`.
   */
  get metricsRegistry(): Registry {
    return this.registry();
  }

  /**
   * Kafka Streams' metadataForAllStreamsClients: every live member of the app's group with its
   * `applicationServer` (undefined if it has none) and the input partitions assigned to it.
   */
  metadataForAllStreamsClients(): Promise<StreamsMetadata[]> {
    return allStreamsClients(this.admin, this.config.applicationId);
  }

  /** Kafka Streams' metadataForLocalThreads: this instance's thread and its tasks. */
  metadataForLocalThreads(): ThreadMetadata[] {
    return [
      localThreadMetadata({
        threadName: this.threadName,
        state: this.currentState,
        thread: this.thread,
        recorder: this.recorder,
        standbys: this.thread?.standbyTasks() ?? [],
      }),
    ];
  }

  /**
   * A read-only view of a state store across this instance's running tasks, reading committed
   * data only. Keys of tasks that run on other instances are not here: see queryMetadataForKey.
   */
  store<K = unknown, V = unknown>(storeName: string): ReadOnlyKeyValueStore<K, V>;
  /**
   * The same, for the store kind given (Kafka Streams' `store(StoreQueryParameters...)`);
   * `{ enableStaleStores: true }` also reads this instance's standby copies, which may lag.
   */
  store<S>(storeName: string, type: QueryableStoreType<S>, parameters?: StoreQueryParameters): S;
  store(storeName: string, type?: QueryableStoreType<unknown>, parameters?: StoreQueryParameters): unknown {
    if (type?.kind === 'window') return readOnlyWindowStore(this.queries, storeName, parameters);
    if (type?.kind === 'session') return readOnlySessionStoreAcrossTasks(this.queries, storeName, parameters);
    return readOnlyStore(this.queries, storeName, parameters);
  }

  /**
   * Which partition holds `key` in the store, and which instance (`applicationServer`) runs it: the
   * key serde routes as the default partitioner does, a StreamPartitioner as the app wrote the key
   * (Kafka Streams' two queryMetadataForKey overloads).
   */
  queryMetadataForKey<K>(
    storeName: string,
    key: K,
    keySerdeOrPartitioner: Serde<K> | StreamPartitioner<K, unknown>,
  ): Promise<KeyQueryMetadata> {
    return this.keyResolver.metadataForKey(storeName, key, keySerdeOrPartitioner);
  }

  /**
   * IQv2 (Kafka Streams' `query(StateQueryRequest)`): the query answered by each partition of the
   * store this instance holds (or those the request names), with the position of each answer.
   * `timeoutMs`: how long a partition below the request's PositionBound is waited for (default 0).
   */
  query<R>(request: StateQueryRequest<R>, options?: StateQueryOptions): Promise<StateQueryResult<R>> {
    if (this.currentState !== 'RUNNING' && this.currentState !== 'REBALANCING')
      throw new IllegalStateError(
        `query() needs a RUNNING or REBALANCING app; it is ${this.currentState}${this.currentState === 'CREATED' ? ': call start() first' : ''}`,
      );
    return queryLocalStores(this.queries, request, options);
  }

  /** Every partition of the store and the instance that runs it (what the HTTP plugin forwards by). */
  queryMetadataForPartitions(storeName: string): Promise<KeyQueryMetadata[]> {
    return this.keyResolver.metadataForPartitions(storeName);
  }

  get state(): KafkaStreamsState {
    return this.currentState;
  }

  /** The error that put the app into ERROR, if any. */
  get error(): Error | undefined {
    return this.lastError;
  }

  /** Whether the app reaches its brokers: the outage going on, or the last one (for /health). */
  brokerConnectivity(): BrokerConnectivitySnapshot {
    return connectivityOf(this.kafka)?.snapshot() ?? { reachable: true };
  }

  metrics(): Readonly<StreamsMetrics> {
    return appMetrics(this.metricsSources);
  }

  setUncaughtExceptionHandler(handler: StreamsUncaughtExceptionHandler): void {
    this.uncaughtHandler = handler;
  }

  setGlobalStateRestoreListener(listener: StateRestoreListener): void {
    if (this.currentState !== 'CREATED') {
      throw new StreamsError('setGlobalStateRestoreListener must be called before start()');
    }
    this.restoreListener = listener;
  }

  private setState(next: KafkaStreamsState): void {
    const prev = this.currentState;
    if (prev === next || !TRANSITIONS[prev].includes(next)) return;
    this.currentState = next;
    this.logger.info({ state: next, previous: prev }, 'state change');
    this.emit('stateChange', next, prev);
  }

  async start(): Promise<void> {
    if (this.currentState !== 'CREATED') {
      throw new StreamsError(
        `start() can be called once, on a CREATED app; this one is ${this.currentState}`,
      );
    }
    this.setState('REBALANCING');
    applyHeapGrowth(this.config.heapGrowingPercent, this.logger);
    if (this.config.consumer.isolationLevel === 'read_committed' && !kafkajsCapabilities().readCommitted) {
      this.logger.warn(
        'kafkajs was bundled into one file, so its read_committed filter could not be corrected: ' +
          'records of aborted transactions may be read as committed. Keep kafkajs external in the bundle.',
      );
    }
    try {
      // Before the group is joined: a second instance on this state directory stops here.
      this.stateDirectory.lock();
      await this.admin.connectOrExplain(this.config.brokers, this.config.kafkaClient.sasl);
      this.logger.debug('admin connected');
      if (this.topology.internalBuilder.hasPatternSources()) {
        this.patternRefresh = new PatternTopicRefresh({
          builder: this.topology.internalBuilder,
          applicationId: this.config.applicationId,
          listTopics: () => this.admin.listTopics(),
          intervalMs: this.config.metadataMaxAgeMs,
          logger: this.logger,
          onNewTopics: () => this.restartForNewTopics(),
        });
        await this.patternRefresh.matchNow();
      }
      // The thread's connections open while the topics are checked (start() reports a failure).
      const thread = this.newThread();
      thread.connect().catch(() => {});
      await prepareTopics(this.topology, this.config, this.admin);
      await initSerdes(this.topology.internalBuilder, this.config.applicationId, this.config);
      this.logger.debug('topics checked');
      await this.startGlobalThread();
      await this.startThread(thread);
      this.patternRefresh?.start();
    } catch (error) {
      this.lastError = error as Error;
      this.setState('PENDING_ERROR');
      await this.thread?.stop().catch(() => {});
      await this.globalThread?.stop().catch(() => {});
      await this.admin.disconnect().catch(() => {});
      this.stateDirectory.unlock();
      this.setState('ERROR');
      throw error;
    }
  }

  /** Global stores are loaded whole before any task starts, as Kafka Streams' GlobalStreamThread. */
  private async startGlobalThread(): Promise<void> {
    if (this.topology.internalBuilder.globalSubtopology() === undefined) return;
    const globalThread = new GlobalStreamThread({
      config: this.config,
      topology: this.topology,
      kafka: this.kafka,
      admin: this.admin,
      logger: this.logger,
      onFatal: (raw) => {
        // As in Kafka Streams, the handler is asked; the global thread cannot be replaced, so
        // every answer stops this client (SHUTDOWN_APPLICATION: see onFatal).
        if (this.closing) return;
        const error = toAuthorizationError(raw, this.config) ?? raw;
        const response = askUncaughtHandler(this.uncaughtHandler, error, this.logger, 'global');
        this.logger.error({ err: error, response }, 'global stream thread failed');
        this.shutDownOnError(error);
      },
    });
    this.globalThread = globalThread;
    await globalThread.start();
  }

  private async startThread(thread = this.newThread()): Promise<void> {
    await thread.start();
  }

  /** A new stream thread, the app's from now on. */
  private newThread(): StreamThread {
    const thread = new StreamThread({
      config: this.config,
      topology: this.topology,
      kafka: this.kafka,
      admin: this.admin,
      logger: this.logger,
      metrics: this.metricsValues,
      recorder: this.recorder,
      restoreListener: this.restoreListener,
      globalStore: (name) => this.globalThread?.store(name),
      onRunningChange: (running) => {
        if (this.thread === thread) this.setState(running ? 'RUNNING' : 'REBALANCING');
      },
      onFatal: (error) => void this.onFatal(thread, error),
      onShutdownRequested: () => {
        if (this.thread !== thread || this.closing) return;
        const error = new StreamsError(
          'another instance of the application asked every instance to stop (SHUTDOWN_APPLICATION)',
        );
        this.logger.error({ err: error }, 'application shutdown requested');
        this.shutDownOnError(error);
      },
    });
    this.thread = thread;
    return thread;
  }

  private async onFatal(thread: StreamThread, raw: Error): Promise<void> {
    if (this.thread !== thread || this.closing) return;
    const error = toAuthorizationError(raw, this.config) ?? raw;
    const response = askUncaughtHandler(this.uncaughtHandler, error, this.logger, 'stream');
    this.logger.error({ err: error, response }, 'stream thread failed');
    if (response === 'REPLACE_THREAD') {
      this.thread = undefined;
      await thread.stop().catch(() => {});
      this.setState('REBALANCING');
      await this.startThread().catch((e) => this.onFatal(this.thread!, e));
      return;
    }
    // SHUTDOWN_APPLICATION: the group's leader stops every instance (membership/shutdown-request.ts).
    if (response === 'SHUTDOWN_APPLICATION') {
      const timeoutMs = this.config.consumer.rebalanceTimeoutMs;
      const sent = await thread.requestApplicationShutdown(timeoutMs).catch(() => false);
      if (!sent)
        this.logger.warn("SHUTDOWN_APPLICATION needs kstreams' own group member: this instance stops alone");
    }
    this.shutDownOnError(error);
  }

  /**
   * New topics joined a pattern source: the stream thread is replaced (it commits and closes its
   * tasks), and the new one subscribes to them too; the group's next assignment includes them.
   */
  private async restartForNewTopics(): Promise<void> {
    const thread = this.thread;
    if (thread === undefined || this.closing) return;
    try {
      await prepareTopics(this.topology, this.config, this.admin);
      this.thread = undefined;
      await thread.stop();
      if (this.closing) return;
      this.setState('REBALANCING');
      await this.startThread();
    } catch (error) {
      if (!this.closing) this.shutDownOnError(error as Error);
    }
  }

  private shutDownOnError(error: Error): void {
    this.patternRefresh?.stop();
    this.lastError = error;
    this.setState('PENDING_ERROR');
    this.closing = (async () => {
      await this.thread?.stop().catch(() => {});
      await this.globalThread?.stop().catch(() => {});
      await this.admin.disconnect().catch(() => {});
      this.stateDirectory.unlock();
      this.setState('ERROR');
    })();
    // An 'error' event without a listener would throw (and end the process); the ERROR state and
    // `app.error` already tell the user, as in Kafka Streams.
    if (this.listenerCount('error') > 0) this.emit('error', error);
  }

  /**
   * Commits, closes stores and stops the group membership. Waits at most `timeoutMs`. A dynamic
   * member leaves the group; a static one (`groupInstanceId`) leaves only with `leaveGroup: true`,
   * so that a restart within the session timeout gets its tasks back without a rebalance.
   */
  async close({ timeoutMs = 60_000, leaveGroup }: CloseOptions = {}): Promise<boolean> {
    if (this.currentState === 'NOT_RUNNING' || this.currentState === 'ERROR') return true;
    if (this.currentState === 'PENDING_ERROR') {
      await this.closing;
      return true;
    }
    this.setState('PENDING_SHUTDOWN');
    this.patternRefresh?.stop();
    this.closing ??= (async () => {
      await this.thread?.stop({ leaveGroup });
      await this.globalThread?.stop();
      await this.admin.disconnect().catch(() => {});
      this.stateDirectory.unlock();
      this.setState('NOT_RUNNING');
    })();
    return finishesWithin(this.closing, timeoutMs);
  }

  /**
   * Kafka Streams' cleanUp(): deletes this application's local state (`<stateDir>/<applicationId>`),
   * so that the next start restores every store from its changelog. Only before start() or after
   * close(); refused while another process runs the application on this state directory.
   */
  cleanUp(): void {
    if (!['CREATED', 'NOT_RUNNING', 'ERROR'].includes(this.currentState)) {
      throw new IllegalStateError(
        `Cannot clean up while running (state ${this.currentState}): call cleanUp() before start() or after close().`,
      );
    }
    this.stateDirectory.cleanUp();
  }

  /** @internal the running thread, for interactive queries */
  get streamThread(): StreamThread | undefined {
    return this.thread;
  }

  /** @internal */
  get adminClient(): StreamsAdmin {
    return this.admin;
  }
}
