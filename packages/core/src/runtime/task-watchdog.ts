// Detects tasks that have stopped making progress while their input is behind: the failure that no
// error reports (a partition left paused, a task in a state no path leaves, commits that stopped),
// so the stream thread can log it loudly and recreate the task from its committed offsets.

import type { Logger } from 'pino';
import type { ResolvedConfig } from '../config/streams-config.ts';
import type { StreamsAdmin, TopicPartitionOffset } from '../kafka/admin.ts';
import { topicPartitionKey } from '../processor/internals/records.ts';
import type { StreamsMetrics } from './metrics.ts';
import type { TaskRuntime } from './task-runtime.ts';

/** One input partition of a task, as the watchdog sees it at one check. */
export interface PartitionProgress {
  topic: string;
  partition: number;
  /** Next offset the task will process. */
  position: number;
  /** The group's committed offset; the log start offset if the group has none. */
  committed: number;
  /** The log end offset. */
  end: number;
}

/** A task found stalled: behind on its input with neither its position nor its commits moving. */
export interface Stall {
  taskId: string;
  stalledForMs: number;
  partitions: PartitionProgress[];
}

/**
 * Remembers, per task, since when its positions and committed offsets have been unchanged while
 * some partition is behind (records left to process, or processed records not committed). A task is stalled once that lasts
 * `timeoutMs`; a task that caught up, or moved at all, starts over.
 */
export class StallDetector {
  private readonly unchanged = new Map<string, { signature: string; since: number }>();

  constructor(readonly timeoutMs: number) {}

  /** Takes the progress of every running task now; returns those stalled for `timeoutMs`. */
  observe(tasks: ReadonlyMap<string, PartitionProgress[]>, now: number): Stall[] {
    const stalls: Stall[] = [];
    for (const id of this.unchanged.keys()) if (!tasks.has(id)) this.unchanged.delete(id);
    for (const [taskId, partitions] of tasks) {
      // Behind: records left to process, or processed ones not committed. Not "committed < end":
      // a partition that was empty or deleted up to its end has nothing to commit.
      if (!partitions.some((p) => p.position < p.end || p.committed < p.position)) {
        this.unchanged.delete(taskId);
        continue;
      }
      const signature = partitions
        .map((p) => `${p.topic}:${p.partition}:${p.position}:${p.committed}`)
        .join();
      const seen = this.unchanged.get(taskId);
      if (seen?.signature !== signature) {
        this.unchanged.set(taskId, { signature, since: now });
        continue;
      }
      if (now - seen.since >= this.timeoutMs)
        stalls.push({ taskId, stalledForMs: now - seen.since, partitions });
    }
    return stalls;
  }

  /** The task was recreated: what it showed before says nothing about the new one. */
  forget(taskId: string): void {
    this.unchanged.delete(taskId);
  }
}

export interface TaskWatchdogDeps {
  config: ResolvedConfig;
  admin: StreamsAdmin;
  logger: Logger;
  metrics: StreamsMetrics;
  timeoutMs: number;
  /** The running tasks to watch (none while the thread closes or has failed). */
  tasks(): TaskRuntime[];
  paused(): Array<{ topic: string; partitions: number[] }>;
  /** Runs `fn` as one of the stream thread's sections, so no batch or commit runs meanwhile. */
  inThread(fn: () => Promise<void>): Promise<void>;
  /** Closes the task without committing and creates it again from its committed offsets. */
  recreate(task: TaskRuntime): Promise<void>;
}

/** Checks the running tasks a few times per timeout and recreates those found stalled. */
export class TaskWatchdog {
  private readonly detector: StallDetector;
  private timer?: NodeJS.Timeout;

  constructor(private readonly deps: TaskWatchdogDeps) {
    this.detector = new StallDetector(deps.timeoutMs);
  }

  start(): void {
    const every = Math.min(10_000, Math.ceil(this.deps.timeoutMs / 4));
    this.timer = setInterval(() => {
      this.check().catch((e) => this.deps.logger.warn({ err: e }, 'task watchdog could not check the tasks'));
    }, every);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** Reads the log ends and committed offsets outside the thread, then judges inside it. */
  async check(): Promise<void> {
    const watched = this.deps.tasks();
    if (watched.length === 0) return;
    const topics = [...new Set(watched.flatMap((t) => t.inputPartitions.map((p) => p.topic)))];
    const { admin, config } = this.deps;
    const [starts, ends, committed] = await Promise.all([
      admin.startOffsets(topics),
      admin.endOffsets(topics),
      admin.committedOffsets(config.applicationId, topics),
    ]);
    const byKey = (offsets: TopicPartitionOffset[]) =>
      new Map(offsets.map((o) => [topicPartitionKey(o.topic, o.partition), o.offset]));
    const endOf = byKey(ends);
    const startOf = byKey(starts);
    const committedOf = byKey(committed.filter((o) => o.offset >= 0));
    await this.deps.inThread(async () => {
      const progress = new Map<string, PartitionProgress[]>();
      const running = new Map(this.deps.tasks().map((t) => [t.id, t]));
      for (const rt of running.values()) {
        progress.set(
          rt.id,
          rt.inputPartitions.map(({ topic, partition }) => {
            const key = topicPartitionKey(topic, partition);
            return {
              topic,
              partition,
              position: rt.position(topic, partition),
              committed: committedOf.get(key) ?? startOf.get(key) ?? 0,
              end: endOf.get(key) ?? 0,
            };
          }),
        );
      }
      for (const stall of this.detector.observe(progress, Date.now())) {
        const rt = running.get(stall.taskId);
        if (rt) await this.recover(rt, stall);
      }
    });
  }

  private async recover(rt: TaskRuntime, stall: Stall): Promise<void> {
    const paused = new Set(
      this.deps.paused().flatMap((t) => t.partitions.map((p) => topicPartitionKey(t.topic, p))),
    );
    this.deps.logger.error(
      {
        taskId: rt.id,
        state: rt.state,
        stalledForMs: stall.stalledForMs,
        partitions: stall.partitions.map((p) => ({
          ...p,
          paused: paused.has(topicPartitionKey(p.topic, p.partition)),
        })),
      },
      'task stalled: its input is behind and it made no progress; recreating it from its committed offsets',
    );
    this.deps.metrics.stalledTasks++;
    this.detector.forget(rt.id);
    await this.deps.recreate(rt);
  }
}
