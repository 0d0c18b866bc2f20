// The consume-process-produce loop: routes each input batch to the task that owns its partition,
// commits tasks at every commit interval (a transaction per task under exactly_once), and follows
// the group's assignment by creating, restoring and closing tasks.

import type { StateRestoreListener } from '@kstreams/state-store';
import type { Logger } from 'pino';
import type { ResolvedConfig } from '../config/streams-config.ts';
import { DeserializationError } from '../errors.ts';
import type { StreamsAdmin, TopicPartitionOffset } from '../kafka/admin.ts';
import type { Kafka } from '../kafka/client.ts';
import { type InputBatch, MainConsumer, toInputRecord } from '../kafka/consumer.ts';
import { isFencedError, isRefusedRecordsError, isRetriableError } from '../kafka/error-kinds.ts';
import { SharedProducer, type TaskProducer, TransactionalTaskProducer } from '../kafka/producers.ts';
import type { Topology } from '../processor/topology.ts';
import type { StreamsMetrics } from './metrics.ts';
import { Mutex } from './mutex.ts';
import { restoreTasks } from './restore.ts';
import { TaskRuntime, type TaskRuntimeDeps } from './task-runtime.ts';
import { TaskWatchdog } from './task-watchdog.ts';

export interface StreamThreadDeps {
  config: ResolvedConfig;
  topology: Topology;
  kafka: Kafka;
  admin: StreamsAdmin;
  logger: Logger;
  metrics: StreamsMetrics;
  restoreListener?: StateRestoreListener;
  /** All assigned tasks are running (true) or some are being created or restored (false). */
  onRunningChange(running: boolean): void;
  /** An error the thread cannot recover from by itself; the app's handler decides. */
  onFatal(error: Error): void;
}

/** Records processed between flushes and heartbeats inside one fetched batch. */
const BATCH_SLICE = 1_000;
/** A fetched batch yields the thread after this long, so commits and punctuation are not starved. */
const MAX_BATCH_MS = 500;

/**
 * Consecutive failures of one task's processing before the error goes to the uncaught exception
 * handler: a processor that throws at the same record again and again will not recover.
 */
const MAX_TASK_RETRIES = 5;

/**
 * How long a task keeps retrying while the broker is unreachable or loses its answers (Kafka
 * Streams' task.timeout.ms): task creation, and sends and commits that fail on the way. Those
 * failures say nothing about the task, so they are bounded by time, not by count.
 */
const TASK_TIMEOUT_MS = 300_000;
/** Pauses between tries of task creation. */
const TASK_CREATION_BACKOFF_MS = [500, 1_000, 2_000, 5_000];

const tpKey = (topic: string, partition: number) => `${topic}\u0000${partition}`;

export class StreamThread {
  private readonly mutex = new Mutex((label, heldMs) =>
    this.log.warn({ section: label, heldMs }, 'stream thread busy for long; the consumer is not polling'),
  );
  private readonly tasks = new Map<string, TaskRuntime>();
  private readonly creating = new Set<string>();
  /** Tasks whose creation is scheduled (after a backoff, or a pause after being fenced). */
  private readonly later = new Set<string>();
  /** Since when each task's sends or commits have been failing on the way, until it commits. */
  private readonly failingSince = new Map<string, number>();
  private readonly topicToSubtopology = new Map<string, number>();
  private readonly consumer: MainConsumer;
  private readonly sharedProducer?: SharedProducer;
  private assigned = new Set<string>();
  private memberId?: string;
  private generation = 0;
  private closing = false;
  private failed = false;
  private tick?: NodeJS.Timeout;
  private readonly watchdog?: TaskWatchdog;
  private lastCommit = Date.now();
  private commitSoon = false;
  private readonly log: Logger;

  constructor(private readonly deps: StreamThreadDeps) {
    const { config, topology } = deps;
    this.log = deps.logger;
    for (const sub of topology.subtopologies(config.applicationId)) {
      for (const t of sub.sourceTopics) this.topicToSubtopology.set(t, sub.id);
    }
    this.consumer = new MainConsumer(deps.kafka, config, {
      subtopologies: () => topology.subtopologies(config.applicationId),
      ownedTasks: () => [...this.tasks.keys()],
      applicationServer: config.applicationServer,
    });
    if (!config.exactlyOnce) this.sharedProducer = new SharedProducer(deps.kafka, config.producer);
    if (config.taskStallTimeoutMs > 0)
      this.watchdog = new TaskWatchdog({
        ...deps,
        timeoutMs: config.taskStallTimeoutMs,
        tasks: () => (this.closing || this.failed ? [] : this.runningTasks()),
        paused: () => this.consumer.paused(),
        inThread: (fn) => this.mutex.run(fn, 'task watchdog'),
        recreate: (rt) => this.recreate(rt, 0),
      });
  }

  /** The tasks this thread runs now, with their stores (for interactive queries). */
  runningTasks(): TaskRuntime[] {
    return [...this.tasks.values()].filter((t) => t.state === 'running');
  }

  async start(): Promise<void> {
    const topics = [...this.topicToSubtopology.keys()];
    await this.sharedProducer?.connect();
    await this.consumer.start(topics, {
      onBatch: (batch) => this.mutex.run(() => this.processBatch(batch), 'processBatch'),
      onAssignment: (memberId, assignment) => {
        void this.mutex
          .run(() => this.onAssignment(memberId, assignment), 'onAssignment')
          .catch((e) => this.fatal(e));
      },
      onRebalancing: () => {
        // kafkajs has no revoke callback: commit as soon as a rebalance starts, so that the tasks
        // that move carry as little uncommitted work as possible.
        void this.mutex
          .run(() => this.commitAll('rebalance'), 'commit on rebalance')
          .catch((e) => this.fatal(e));
      },
      onControlRecords: (topic, partition, first, last) => {
        void this.mutex
          .run(async () => {
            const rt = this.tasks.get(this.taskIdFor(topic, partition) ?? '');
            if (rt?.state === 'running') rt.skipControlRecords(topic, partition, first, last);
          }, 'control records')
          .catch((e) => this.fatal(e));
      },
      onCrash: (error, willRestart) => {
        this.log.warn({ err: error, willRestart }, 'consumer crashed');
        if (!willRestart) this.fatal(error);
      },
    });
    const period = Math.min(100, this.deps.config.commitIntervalMs);
    this.tick = setInterval(() => {
      void this.mutex.run(() => this.onTick(), 'tick').catch((e) => this.fatal(e));
    }, period);
    this.watchdog?.start();
  }

  /** Commits what was processed, closes the tasks and leaves the group. */
  async stop(): Promise<void> {
    if (this.tick) clearInterval(this.tick);
    this.watchdog?.stop();
    await this.mutex.run(async () => {
      this.closing = true;
      if (!this.failed) await this.commitAll('shutdown');
    });
    await this.consumer.stop().catch((e) => this.log.warn({ err: e }, 'consumer did not stop cleanly'));
    await this.mutex.run(async () => {
      for (const t of this.tasks.values()) await t.close({ dirty: this.failed });
      this.tasks.clear();
    });
    await this.sharedProducer?.close();
  }

  private fatal(error: unknown): void {
    if (this.failed || this.closing) return;
    this.failed = true;
    this.deps.onFatal(error instanceof Error ? error : new Error(String(error)));
  }

  private taskIdFor(topic: string, partition: number): string | undefined {
    const sub = this.topicToSubtopology.get(topic);
    return sub === undefined ? undefined : `${sub}_${partition}`;
  }

  private lastDiagnostics = 0;

  private async onTick(): Promise<void> {
    if (this.closing || this.failed) return;
    const now = Date.now();
    if (now - this.lastDiagnostics > 5000 && this.log.isLevelEnabled('debug')) {
      this.lastDiagnostics = now;
      this.log.debug(
        {
          assigned: [...this.assigned].sort(),
          tasks: [...this.tasks.values()].map((t) => `${t.id}:${t.state}`),
          creating: [...this.creating],
          paused: this.consumer.paused(),
        },
        'thread diagnostics',
      );
    }
    for (const t of this.runningTasks()) await t.task.punctuateWallClock(now);
    const due = now - this.lastCommit >= this.deps.config.commitIntervalMs;
    if (due || this.commitSoon || this.runningTasks().some((t) => t.task.commitRequested)) {
      await this.commitAll(due ? 'interval' : 'requested');
    }
  }

  private async processBatch(batch: InputBatch): Promise<void> {
    if (this.closing || this.failed) return;
    const taskId = this.taskIdFor(batch.topic, batch.partition);
    const rt = taskId ? this.tasks.get(taskId) : undefined;
    if (rt?.state !== 'running') {
      // Not ready (being created or restored, or fenced): leave the position where it is; the
      // partition resumes when its task is running.
      this.consumer.pause([{ topic: batch.topic, partition: batch.partition }]);
      // Only task creation resumes a partition: a task that is ours but neither running nor being
      // created (no path should leave one so, but a pause must never be left without an owner)
      // is created now.
      if (taskId && !rt && this.missing(taskId)) this.createLater([taskId], 0);
      return;
    }
    const key = tpKey(batch.topic, batch.partition);
    const started = Date.now();
    let processed = 0;
    // A seek is set only by this thread's own sections (which run one at a time), so a batch that
    // is not stale when it starts stays valid until we roll back, which ends the batch.
    if (batch.isStale()) return;
    for (const m of batch.messages) {
      if (rt.state !== 'running') break;
      const offset = Number(m.offset);
      // kafkajs restarts from the group's committed offset after a rejoin; records before the
      // task's own position are already in its (possibly uncommitted) state.
      if (offset < rt.position(key)) {
        batch.resolveOffset(offset);
        continue;
      }
      const record = toInputRecord(batch.topic, batch.partition, m);
      try {
        const r = rt.task.process(record);
        if (r) await r;
      } catch (error) {
        await this.onTaskError(rt, error, 'processing', record);
        return;
      }
      rt.advance(key, offset);
      batch.resolveOffset(offset);
      this.deps.metrics.processedRecords++;
      if (++processed % BATCH_SLICE === 0) {
        // Bounded work per turn: output goes out in moderate requests, the group sees
        // heartbeats, and commits and punctuators get their turn. The rest of the batch is
        // fetched again from the resolved position.
        if (!(await this.flushTask(rt))) return;
        await batch.heartbeat();
        if (Date.now() - started >= MAX_BATCH_MS) break;
      }
    }
    const last = batch.messages.at(-1);
    // Markers after the last record (the commit of the transaction that wrote it) belong to what
    // the task has consumed once it processed that record; else its committed offset stays short
    // of the log end.
    if (last && rt.state === 'running') {
      const after = Number(last.offset) + 1;
      if (rt.skipControlRecords(batch.topic, batch.partition, after, batch.lastOffset))
        batch.resolveOffset(batch.lastOffset);
    }
    if (!(await this.flushTask(rt))) return;
    if (rt.task.commitRequested) this.commitSoon = true;
  }

  private async flushTask(rt: TaskRuntime): Promise<boolean> {
    try {
      await rt.flush();
      return true;
    } catch (error) {
      await this.onTaskError(rt, error, 'producer');
      return false;
    }
  }

  /**
   * A processor threw or a send failed: roll the task back to its last commit and go on.
   * @param where `processing`: a processor (or a serde) threw; `producer`: a send or a commit
   * failed.
   */
  private async onTaskError(
    rt: TaskRuntime,
    error: unknown,
    where: 'processing' | 'producer',
    record?: { topic: string; partition: number; offset: number },
  ) {
    const fenced = isFencedError(error);
    this.log.warn(
      { err: error, taskId: rt.id, ...record, fenced, where },
      'task failed; rolling back to its last commit',
    );
    // A send or commit that failed for any reason but the records themselves leaves the producer
    // in a state it cannot know: a commit may have gone through with its response lost; the
    // broker may hold records whose acks never came, so kafkajs' sequence numbers no longer match
    // the broker's (OUT_OF_ORDER_SEQUENCE_NUMBER on every later send, seen after a broker
    // restart); a commit that failed half-way leaves kafkajs' transaction state machine stuck
    // ("Cannot call beginTransaction in state COMMITTING", seen when the group coordinator moved
    // during a broker restart). Only a new producer gets out of it: under exactly_once the task is
    // rebuilt with one, from what Kafka holds; under at_least_once the shared producer is replaced
    // (the other tasks' sent records are acknowledged, their unsent ones go out through the new
    // producer). Records the broker refuses (too large) are rolled back in place and counted.
    const producerBroken = where === 'producer' && !isRefusedRecordsError(error);
    if (producerBroken && this.sharedProducer) {
      this.log.warn(
        { taskId: rt.id },
        'replacing the shared producer, whose state is unknown after the failure',
      );
      await this.sharedProducer.reset();
    }
    await this.rollback(rt, fenced, producerBroken && this.deps.config.exactlyOnce);
    if (error instanceof DeserializationError) {
      this.fatal(error);
      return;
    }
    if (fenced) return;
    if (producerBroken) {
      const since = this.failingSince.get(rt.id) ?? Date.now();
      this.failingSince.set(rt.id, since);
      if (Date.now() - since > TASK_TIMEOUT_MS) {
        this.fatal(
          new Error(
            `task ${rt.id} could not commit for ${TASK_TIMEOUT_MS} ms; last error: ${String(error)}`,
            { cause: error },
          ),
        );
      }
    } else if (++rt.consecutiveFailures > MAX_TASK_RETRIES) {
      this.fatal(
        new Error(
          `task ${rt.id} failed ${rt.consecutiveFailures} times in a row; last error: ${String(error)}`,
          { cause: error },
        ),
      );
    }
  }

  /** Closes the task without committing and creates it again from what Kafka holds, if still ours. */
  private async recreate(rt: TaskRuntime, delayMs: number): Promise<void> {
    await rt.close({ dirty: true });
    this.tasks.delete(rt.id);
    this.consumer.pause(rt.inputPartitions);
    this.reportRunning();
    this.createLater([rt.id], delayMs);
  }

  private async rollback(rt: TaskRuntime, fenced: boolean, rebuild: boolean): Promise<void> {
    this.deps.metrics.rollbacks++;
    const ok = await rt.rollback();
    if (fenced || !ok || rebuild) {
      // The task's producer is dead (fenced: another instance owns the task now) or in an
      // unknown state. Close it without committing and let a new task start from what Kafka
      // holds; the group's next assignment decides whether it comes back.
      if (fenced) this.deps.metrics.fencedTasks++;
      // If it is still ours by the last assignment we saw: when another instance fenced us from
      // a stale view of the group, it learns so at its next heartbeat; try again after a pause
      // rather than wait for a rebalance that may never come.
      await this.recreate(rt, fenced ? 2_000 : 0);
      return;
    }
    for (const tp of rt.startPositions()) this.consumer.seek(tp);
  }

  private async commitAll(reason: string): Promise<void> {
    const due = this.runningTasks().filter((t) => t.task.commitNeeded || t.task.commitRequested);
    this.lastCommit = Date.now();
    this.commitSoon = false;
    if (due.length === 0) return;
    const started = Date.now();
    if (this.deps.config.exactlyOnce) {
      await Promise.all(due.map((t) => this.commitTransactional(t)));
    } else {
      await this.commitAtLeastOnce(due);
    }
    this.log.debug({ reason, tasks: due.map((t) => t.id), ms: Date.now() - started }, 'committed');
  }

  private async commitTransactional(rt: TaskRuntime): Promise<void> {
    try {
      await rt.commitTransaction(this.deps.config.applicationId);
      this.failingSince.delete(rt.id);
      this.deps.metrics.commits++;
    } catch (error) {
      await this.onTaskError(rt, error, 'producer');
    }
  }

  private async commitAtLeastOnce(due: TaskRuntime[]): Promise<void> {
    const sent = new Map<TaskRuntime, TopicPartitionOffset[]>();
    for (const rt of due) {
      try {
        sent.set(rt, await rt.sendForCommit());
      } catch (error) {
        await this.onTaskError(rt, error, 'producer');
      }
    }
    const ready = due.filter((t) => sent.has(t));
    let offsetsCommitted = true;
    try {
      await this.consumer.commitOffsets(ready.flatMap((t) => t.task.consumedOffsets()));
    } catch (error) {
      // The outputs and changelog records are acknowledged, so the stores must follow the
      // changelog. The offsets stay due: the next commit sends them again (with the generation
      // kafkajs has joined by then), else a task whose input is all processed never commits
      // again. If the task moves meanwhile, its new owner processes the input again
      // (at_least_once allows it).
      offsetsCommitted = false;
      this.log.warn(
        { err: error, tasks: ready.map((t) => t.id) },
        'offset commit failed; retrying at the next commit',
      );
    }
    for (const rt of ready) {
      await rt.postCommit(sent.get(rt)!, { offsetsCommitted });
      if (!offsetsCommitted) continue;
      this.failingSince.delete(rt.id);
      this.deps.metrics.commits++;
    }
  }

  private async onAssignment(memberId: string, assignment: Record<string, number[]>): Promise<void> {
    if (this.closing) return;
    this.generation++;
    const assigned = new Set<string>();
    for (const [topic, partitions] of Object.entries(assignment)) {
      for (const p of partitions) {
        const id = this.taskIdFor(topic, p);
        if (id) assigned.add(id);
      }
    }
    const lostAll = this.memberId !== undefined && this.memberId !== memberId;
    this.memberId = memberId;
    this.assigned = assigned;
    this.log.info({ memberId, tasks: [...assigned].sort(), lostAll }, 'assignment received');
    if (lostAll) {
      // We were dropped from the group (e.g. paused past the session timeout): others may have
      // run our tasks since, so their local uncommitted state is stale.
      for (const rt of this.tasks.values()) await rt.close({ dirty: true });
      this.tasks.clear();
    }
    const revoked = [...this.tasks.values()].filter((t) => !assigned.has(t.id));
    if (revoked.length > 0) {
      const committable = revoked.filter((t) => t.state === 'running');
      if (this.deps.config.exactlyOnce)
        await Promise.all(committable.map((t) => this.commitTransactional(t)));
      else if (committable.length > 0) await this.commitAtLeastOnce(committable);
      for (const rt of revoked) {
        await rt.close({ dirty: false });
        this.tasks.delete(rt.id);
      }
    }
    const fresh = [...assigned].filter((id) => !this.tasks.has(id) && !this.creating.has(id));
    this.createTasks(fresh);
    this.reportRunning();
  }

  private reportRunning(): void {
    const running = [...this.assigned].every((id) => this.tasks.get(id)?.state === 'running');
    this.deps.onRunningChange(running);
  }

  /** Creates, restores and starts tasks in the background while the consumer keeps heartbeating. */
  private createTasks(ids: string[], attempt = 0, firstFailure?: number): void {
    if (ids.length === 0) return;
    const generation = this.generation;
    for (const id of ids) this.creating.add(id);
    const runtimes = ids.map((id) => new TaskRuntime(id, this.taskDeps()));
    for (const rt of runtimes) this.consumer.pause(rt.inputPartitions);
    void (async () => {
      try {
        // Wait for every task's initialization, not only the first to fail: closing a task whose
        // stores are still opening leaves its database open and locked, and the retry then fails
        // with StoreLockedError (seen in CI when a new topic had no leader yet).
        const initialized = await Promise.allSettled(runtimes.map((rt) => rt.initialize()));
        const failure = initialized.find((r) => r.status === 'rejected');
        if (failure) throw failure.reason;
        await restoreTasks(this.deps, runtimes);
        for (const rt of runtimes) await rt.task.initializeTopology();
        await this.mutex.run(async () => {
          for (const rt of runtimes) {
            this.creating.delete(rt.id);
            if (this.closing || !this.assigned.has(rt.id) || this.generation !== generation) {
              // Revoked while restoring; a newer assignment creates it again if it is ours.
              await rt.close({ dirty: true });
              if (!this.closing && this.missing(rt.id)) this.createTasks([rt.id]);
              continue;
            }
            for (const tp of rt.startPositions()) this.consumer.seek(tp);
            rt.state = 'running';
            this.tasks.set(rt.id, rt);
            this.consumer.resume(rt.inputPartitions);
            this.log.info({ taskId: rt.id }, 'task running');
          }
          this.reportRunning();
        });
      } catch (error) {
        for (const rt of runtimes) {
          this.creating.delete(rt.id);
          await rt.close({ dirty: true });
        }
        if (this.closing) return;
        const since = firstFailure ?? Date.now();
        if (!isRetriableError(error) || Date.now() - since > TASK_TIMEOUT_MS) {
          this.fatal(error);
          return;
        }
        // The broker is away or restarting: try again while the tasks are still ours.
        const delay = TASK_CREATION_BACKOFF_MS[Math.min(attempt, TASK_CREATION_BACKOFF_MS.length - 1)]!;
        this.log.warn({ err: error, tasks: ids, retryInMs: delay }, 'creating tasks failed; retrying');
        this.createLater(ids, delay, attempt + 1, since);
      }
    })();
  }

  /** Assigned to us by the last assignment, but neither running nor being created. */
  private missing(id: string): boolean {
    return this.assigned.has(id) && !this.tasks.has(id) && !this.creating.has(id) && !this.later.has(id);
  }

  /** After `delayMs`, creates those of `ids` that are still missing. */
  private createLater(ids: string[], delayMs: number, attempt = 0, firstFailure?: number): void {
    for (const id of ids) this.later.add(id);
    setTimeout(
      () =>
        void this.mutex.run(() => {
          for (const id of ids) this.later.delete(id);
          if (!this.closing)
            this.createTasks(
              ids.filter((id) => this.missing(id)),
              attempt,
              firstFailure,
            );
        }, 'recreate tasks'),
      delayMs,
    ).unref();
  }

  private taskDeps(): TaskRuntimeDeps {
    const { config, kafka, admin, topology, metrics } = this.deps;
    return {
      config,
      topology,
      admin,
      metrics,
      logger: this.log,
      producerFor: (taskId: string): TaskProducer =>
        config.exactlyOnce
          ? new TransactionalTaskProducer(kafka, `${config.applicationId}-${taskId}`, config.producer)
          : this.sharedProducer!,
    };
  }
}
