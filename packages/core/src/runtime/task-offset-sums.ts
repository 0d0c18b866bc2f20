// What an instance reports in its subscription for KIP-441 (kafka/subscription-info.ts'
// taskOffsetSums), as Kafka Streams' TaskManager.getTaskOffsetSums: LATEST_OFFSET (-2) for each
// active it runs, a standby's position for each standby, and for every other task folder on disk
// ("tasks on disk": state left by a task that moved away, or by the previous run of this instance)
// the sum of its checkpointed changelog offsets. The leader turns these into lags, so that a task
// goes back where its state is instead of restoring from scratch elsewhere.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { readCheckpoint } from '@kstreams/state-store';
import { encodeSubscriptionInfo, LATEST_OFFSET, taskOffsetSum } from '../kafka/subscription-info.ts';
import { parseTaskId } from '../processor/internals/assignment/sticky-task-assignor.ts';
import type { SubtopologyInfo } from '../processor/internals/internal-topology-builder.ts';
import { CHECKPOINT_FILE_NAME, taskDirectory } from './state-directory.ts';

/** A task folder's name: `<subtopology>_<partition>` (the global stores' folder is not one). */
const TASK_DIRECTORY = /^\d+_\d+$/;

export interface TaskOffsetSumsInput {
  config: { stateDir: string; applicationId: string };
  /** The topology's sub-topologies (Topology.subtopologies): which changelogs a task has. */
  subtopologies: readonly Pick<SubtopologyInfo, 'id' | 'stores'>[];
  /** The active tasks this instance runs (restored and processing). */
  runningActives: Iterable<string>;
  /** The standby tasks it runs, at their current position. */
  standbys: Iterable<{ id: string; offsetSum(): number }>;
}

/**
 * Per task: -2 for a running active, the standby's offset sum, else the checkpointed sum of a task
 * folder on disk. A folder without a checkpoint, or whose checkpoint has none of the task's
 * changelogs (torn, or written by a topology without them), is left out as Kafka Streams leaves it
 * out: the leader then counts the whole changelog as the lag, which is what restoring it costs.
 * A task of a sub-topology without logged stores reports nothing on disk: it has no state to keep.
 */
export async function taskOffsetSums(input: TaskOffsetSumsInput): Promise<Map<string, number>> {
  return mergeOffsetSums(
    input.runningActives,
    input.standbys,
    await checkpointedOffsetSums(input.config, input.subtopologies),
  );
}

/** The live tasks' sums over those read from disk: a task this instance runs reports its live state. */
export function mergeOffsetSums(
  runningActives: Iterable<string>,
  standbys: Iterable<{ id: string; offsetSum(): number }>,
  onDisk: ReadonlyMap<string, number>,
): Map<string, number> {
  const sums = new Map<string, number>();
  for (const id of runningActives) sums.set(id, LATEST_OFFSET);
  for (const s of standbys) if (!sums.has(s.id)) sums.set(s.id, s.offsetSum());
  for (const [id, sum] of onDisk) if (!sums.has(id)) sums.set(id, sum);
  return sums;
}

/** The checkpointed offset sum of every stateful task folder on disk. */
export async function checkpointedOffsetSums(
  config: { stateDir: string; applicationId: string },
  subtopologies: readonly Pick<SubtopologyInfo, 'id' | 'stores'>[],
): Promise<Map<string, number>> {
  const sums = new Map<string, number>();
  const changelogs = new Map(
    subtopologies.map((s) => [
      s.id,
      new Set(s.stores.flatMap((st) => (st.changelogTopic === null ? [] : [st.changelogTopic]))),
    ]),
  );
  for (const task of await taskDirectoriesOnDisk(config)) {
    const [subtopology, partition] = parseTaskId(task);
    const topics = changelogs.get(subtopology);
    if (topics === undefined || topics.size === 0) continue;
    const dir = taskDirectory(config, task);
    // readCheckpoint reads a missing file as [] too; a missing file is simply no position.
    const entries = (await readCheckpoint(join(dir, CHECKPOINT_FILE_NAME))).filter(
      (e) => topics.has(e.topic) && e.partition === partition,
    );
    if (entries.length > 0) sums.set(task, taskOffsetSum(entries));
  }
  return sums;
}

/**
 * The member's subscription userData (GroupMemberOptions.userData, which is synchronous): the live
 * tasks at the moment of the join, the tasks on disk as the last `refresh()` read them. The stream
 * thread refreshes before it starts and after each rebalance's closes (closing writes checkpoints).
 */
export class SubscriptionUserData {
  private onDisk: ReadonlyMap<string, number> = new Map();

  constructor(
    private readonly source: {
      config: { stateDir: string; applicationId: string };
      subtopologies: readonly Pick<SubtopologyInfo, 'id' | 'stores'>[];
      /** Kafka Streams' processId: one per instance, shared by its members. */
      processId: string;
      applicationServer?: string | undefined;
      runningActives: () => Iterable<string>;
      standbys: () => Iterable<{ id: string; offsetSum(): number }>;
    },
  ) {}

  async refresh(): Promise<void> {
    this.onDisk = await checkpointedOffsetSums(this.source.config, this.source.subtopologies);
  }

  encode({ shutdownRequested = false }: { shutdownRequested?: boolean } = {}): Buffer {
    const actives = [...this.source.runningActives()];
    return encodeSubscriptionInfo({
      shutdownRequested,
      // Version 1's field: a v1 leader still keeps these tasks here.
      ownedTasks: actives,
      applicationServer: this.source.applicationServer,
      processId: this.source.processId,
      taskOffsetSums: mergeOffsetSums(actives, this.source.standbys(), this.onDisk),
    });
  }
}

/** The task folders under `<stateDir>/<applicationId>`; none when the folder does not exist yet. */
export async function taskDirectoriesOnDisk(config: {
  stateDir: string;
  applicationId: string;
}): Promise<string[]> {
  const appDir = join(config.stateDir, config.applicationId);
  let names: string[];
  try {
    names = await readdir(appDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const tasks: string[] = [];
  for (const name of names.filter((n) => TASK_DIRECTORY.test(n)).sort()) {
    if ((await stat(join(appDir, name))).isDirectory()) tasks.push(name);
  }
  return tasks;
}
