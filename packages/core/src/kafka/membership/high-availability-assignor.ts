// The leader's assignment with standbys (issue 37): KIP-441's high-availability assignor over the
// instances (processor/internals/assignment/), split over each instance's members, made cooperative
// (KIP-429) for the active tasks only. A standby owns no partition, so it moves at once; an active
// task that changes member is first revoked by its owner and assigned in the follow-up rebalance,
// and meanwhile the new owner keeps a standby of it if it is stateful (Kafka Streams does the same:
// the standby starts catching up while the old owner commits and closes).
import { compareTaskIds } from '../../processor/internals/assignment/client-plan.ts';
import {
  assignHighAvailability,
  type HighAvailabilityConfig,
} from '../../processor/internals/assignment/high-availability-task-assignor.ts';
import { splitOverMembers } from '../../processor/internals/assignment/member-tasks.ts';
import {
  type SubtopologyTopics,
  type TaskSpec,
  tasksFor,
} from '../../processor/internals/assignment/sticky-task-assignor.ts';
import { endOffsetSums, type TaskChangelogs } from '../../processor/internals/assignment/task-lags.ts';
import type { SubtopologyInfo } from '../../processor/internals/internal-topology-builder.ts';
import type { TopicPartitionOffset } from '../admin.ts';
import { encodeAssignmentInfo } from '../assignment-info.ts';
import {
  assignorClients,
  decodeSubscriptionInfo,
  LATEST_OFFSET,
  type SubscriptionInfo,
  SubscriptionInfoError,
  UNKNOWN_OFFSET_SUM,
} from '../subscription-info.ts';
import type { Assignment, TopicPartitions } from './consumer-protocol.ts';
import {
  cooperativeAssign,
  fromKeys,
  type OwnedClaim,
  type PartitionKey,
  partitionKey,
  validOwnership,
} from './cooperative.ts';
import type { GroupAssignor } from './group-member.ts';
import { STREAMS_PROTOCOL_NAME, tasksOwned } from './task-assignment.ts';

/** A sub-topology with the changelog topics of its logged stores (partition p belongs to task p). */
export interface HighAvailabilitySubtopology extends SubtopologyTopics {
  changelogTopics: readonly string[];
}

export interface HighAvailabilityMember extends OwnedClaim {
  /** The member's decoded subscription userData (kafka/subscription-info.ts). */
  info: SubscriptionInfo;
}

export interface HighAvailabilityGroupInput {
  subtopologies: readonly HighAvailabilitySubtopology[];
  partitionCount: (topic: string) => number;
  members: readonly HighAvailabilityMember[];
  /**
   * Per stateful task, the sum of its changelogs' end offsets; undefined when they could not be
   * read: then every instance counts as caught up (Kafka Streams' FallbackPriorTaskAssignor) and
   * a probing rebalance tries again.
   */
  endOffsetSums: ReadonlyMap<string, number> | undefined;
  config: HighAvailabilityConfig;
}

export interface MemberPlan {
  /** The instance the member belongs to (its subscription's processId, else its member id). */
  processId: string;
  /** The actives the member runs once the rebalance settles. */
  targetActive: string[];
  /** The actives it gets now: the target's minus those whose partitions another member still owns. */
  active: string[];
  /** Standbys and warm-ups, plus the stateful targets still waiting for their owner to revoke them. */
  standby: string[];
  /** The input partitions of `active`. */
  partitions: TopicPartitions[];
}

export interface HighAvailabilityGroupPlan {
  members: Map<string, MemberPlan>;
  /** An active waits for its owner to revoke it: that owner rejoins and the group rebalances again. */
  followUp: boolean;
  /** Warm-ups exist (or lags were unknown): rebalance again after probingRebalanceIntervalMs. */
  probingRebalanceNeeded: boolean;
}

/** The topology's sub-topologies (Topology.subtopologies) as the assignor needs them. */
export function withChangelogTopics(
  subtopologies: ReadonlyArray<Pick<SubtopologyInfo, 'id' | 'sourceTopics' | 'stores'>>,
): HighAvailabilitySubtopology[] {
  return subtopologies.map((s) => ({
    id: s.id,
    sourceTopics: s.sourceTopics,
    changelogTopics: s.stores.flatMap((st) => (st.changelogTopic === null ? [] : [st.changelogTopic])),
  }));
}

/** Each task with its changelog partitions: partition p of each changelog topic of its sub-topology. */
export function taskChangelogs(
  tasks: readonly TaskSpec[],
  subtopologies: readonly HighAvailabilitySubtopology[],
): TaskChangelogs[] {
  const topics = new Map(subtopologies.map((s) => [s.id, s.changelogTopics]));
  return tasks.map((t) => ({
    id: t.id,
    changelogs: (topics.get(t.subtopology) ?? []).map((topic) => ({ topic, partition: t.partition })),
  }));
}

/**
 * What the member ran and holds, as the leader may believe it: the tasks of the partitions it
 * validly owns (KIP-429's generation rule) run (-2), as Kafka Streams takes its previous actives
 * from the owned partitions. A -2 claim without such partitions (a zombie's) keeps its state but
 * at an unknown position (-3): it must not outrank the real owner.
 */
function believedInfo(info: SubscriptionInfo, running: readonly string[]): SubscriptionInfo {
  const runs = new Set(running);
  const sums = new Map<string, number>();
  for (const [task, sum] of info.taskOffsetSums)
    sums.set(task, sum === LATEST_OFFSET && !runs.has(task) ? UNKNOWN_OFFSET_SUM : sum);
  for (const task of runs) sums.set(task, LATEST_OFFSET);
  return { ...info, taskOffsetSums: sums };
}

/** The leader's plan: pure, for unit tests without a broker. */
export function planHighAvailabilityGroup(input: HighAvailabilityGroupInput): HighAvailabilityGroupPlan {
  const tasks = tasksFor([...input.subtopologies], input.partitionCount);
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const changelogs = taskChangelogs(tasks, input.subtopologies);
  const stateful = new Set(changelogs.filter((t) => t.changelogs.length > 0).map((t) => t.id));
  const owned = validOwnership([...input.members]);
  const members = input.members.map((m) => ({
    memberId: m.memberId,
    info: believedInfo(m.info, tasksOwned(tasks, owned.get(m.memberId)!)),
  }));
  const lagsKnown = input.endOffsetSums !== undefined;
  const { clients, processOf } = assignorClients(members, input.endOffsetSums ?? new Map());
  const ha = assignHighAvailability(clients, changelogs, {
    ...input.config,
    acceptableRecoveryLag: lagsKnown ? input.config.acceptableRecoveryLag : Number.MAX_SAFE_INTEGER,
  });

  const split = new Map<string, { active: string[]; standby: string[] }>();
  for (const [processId, clientTasks] of ha.clients) {
    const own = members
      .filter((m) => processOf.get(m.memberId) === processId)
      .map((m) => ({ memberId: m.memberId, ownedTasks: [...m.info.taskOffsetSums.keys()] }));
    for (const [memberId, t] of splitOverMembers(clientTasks, own)) split.set(memberId, t);
  }

  const partitionsOf = (task: string) =>
    byId.get(task)!.inputs.map((i) => partitionKey(i.topic, i.partition));
  const { assignment } = cooperativeAssign(
    owned,
    new Map([...split].map(([id, t]) => [id, fromKeys(t.active.flatMap(partitionsOf))])),
  );
  const ownerOf = new Map<PartitionKey, string>();
  for (const [memberId, keys] of owned) for (const key of keys) ownerOf.set(key, memberId);
  // Standing by for a pending task needs its folder, which another member of the same instance
  // still has open while it runs the task: only a task coming from another instance waits so.
  const fromElsewhere = (memberId: string, task: string) =>
    partitionsOf(task).every((k) => {
      const owner = ownerOf.get(k);
      return owner === undefined || processOf.get(owner) !== processOf.get(memberId);
    });
  const plan = new Map<string, MemberPlan>();
  let followUp = false;
  for (const [memberId, t] of split) {
    const given = new Set<PartitionKey>();
    for (const list of assignment.get(memberId) ?? [])
      for (const p of list.partitions) given.add(partitionKey(list.topic, p));
    // A task runs only with all its partitions: one still owned elsewhere holds back the others too.
    const active = t.active.filter((task) => partitionsOf(task).every((k) => given.has(k)));
    const pending = t.active.filter((task) => !active.includes(task));
    if (pending.length > 0) followUp = true;
    plan.set(memberId, {
      processId: processOf.get(memberId)!,
      targetActive: [...t.active].sort(compareTaskIds),
      active: active.sort(compareTaskIds),
      standby: [
        ...t.standby,
        ...pending.filter((task) => stateful.has(task) && fromElsewhere(memberId, task)),
      ].sort(compareTaskIds),
      partitions: fromKeys(active.flatMap(partitionsOf)),
    });
  }
  return { members: plan, followUp, probingRebalanceNeeded: ha.probingRebalanceNeeded || !lagsKnown };
}

export interface HighAvailabilityAssignorOptions {
  subtopologies: () => HighAvailabilitySubtopology[];
  config: HighAvailabilityConfig & { probingRebalanceIntervalMs: number };
  /**
   * This instance's process id. Its first member (by member id) carries the probing rebalance's
   * time: one member rejoining rebalances the whole group (Kafka Streams picks the leader's client).
   */
  processId: string;
  /** The end offsets of the changelog topics' partitions (StreamsAdmin.endOffsets). */
  endOffsets: (topics: string[]) => Promise<TopicPartitionOffset[]>;
  /** The lag fetch failed: the assignment went ahead without lags (for the log). */
  onLagFailure?: (error: unknown) => void;
  now?: () => number;
}

/**
 * The group assignor a kstreams leader runs with standbys: decodes each member's subscription info
 * (v1 or v2), reads the changelogs' end offsets, plans (planHighAvailabilityGroup) and writes each
 * member's assignment info v2 as the assignment's userData.
 */
export function highAvailabilityAssignor(options: HighAvailabilityAssignorOptions): GroupAssignor {
  const now = options.now ?? Date.now;
  return {
    name: STREAMS_PROTOCOL_NAME,
    async assign(joined, partitionCount) {
      const subtopologies = options.subtopologies();
      const members = joined.map((m) => ({
        memberId: m.memberId,
        ownedPartitions: m.subscription.ownedPartitions,
        generationId: m.subscription.generationId,
        info: decodeMemberInfo(m.memberId, m.subscription.userData),
      }));
      const changelogs = taskChangelogs(tasksFor(subtopologies, partitionCount), subtopologies);
      let endSums: Map<string, number> | undefined;
      try {
        endSums = await changelogEndOffsetSums(changelogs, options.endOffsets);
      } catch (error) {
        options.onLagFailure?.(error);
      }
      const plan = planHighAvailabilityGroup({
        subtopologies,
        partitionCount,
        members,
        endOffsetSums: endSums,
        config: options.config,
      });
      const prober = plan.probingRebalanceNeeded ? probingMember(plan, options.processId) : undefined;
      const nextRebalanceMs = now() + options.config.probingRebalanceIntervalMs;
      const result = new Map<string, Assignment>();
      for (const [memberId, m] of plan.members)
        result.set(memberId, {
          partitions: m.partitions,
          userData: encodeAssignmentInfo({
            activeTasks: m.active,
            standbyTasks: m.standby,
            ...(memberId === prober ? { nextRebalanceMs } : {}),
          }),
        });
      return result;
    },
  };
}

function decodeMemberInfo(memberId: string, userData: Buffer | null): SubscriptionInfo {
  try {
    return decodeSubscriptionInfo(userData);
  } catch (error) {
    if (!(error instanceof SubscriptionInfoError)) throw error;
    throw new SubscriptionInfoError(
      `member ${memberId} sent a broken subscription: ${error.message}; is it a kstreams app of another version?`,
    );
  }
}

/** Per stateful task, its changelogs' end offset sum; a partition not (yet) created counts as 0. */
export async function changelogEndOffsetSums(
  tasks: readonly TaskChangelogs[],
  endOffsets: (topics: string[]) => Promise<TopicPartitionOffset[]>,
): Promise<Map<string, number>> {
  const topics = [...new Set(tasks.flatMap((t) => t.changelogs.map((c) => c.topic)))].sort();
  if (topics.length === 0) return new Map();
  const ends = new Map<PartitionKey, number>();
  for (const o of await endOffsets(topics)) ends.set(partitionKey(o.topic, o.partition), o.offset);
  return endOffsetSums(tasks, (topic, partition) => ends.get(partitionKey(topic, partition)) ?? 0);
}

/** The first member (by id) of the leader's instance, else of the whole group. */
function probingMember(plan: HighAvailabilityGroupPlan, processId: string): string | undefined {
  const ids = [...plan.members.keys()].sort();
  return ids.find((id) => plan.members.get(id)!.processId === processId) ?? ids[0];
}
