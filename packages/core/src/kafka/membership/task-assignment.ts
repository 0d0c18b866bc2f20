// The leader's whole assignment for a kstreams group: the sticky, co-partitioned task assignment
// (processor/internals/assignment/), turned into partitions and made cooperative. A task owns
// partition p of each source topic of its sub-topology, so co-partitioned inputs always go
// together; a member keeps the tasks whose partitions it owns as far as balance allows.
import {
  assignTasks,
  type SubtopologyTopics,
  type TaskSpec,
  tasksFor,
} from '../../processor/internals/assignment/sticky-task-assignor.ts';
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

export interface TaskAssignmentMember extends OwnedClaim {
  /** Tasks the member holds state for beyond its partitions (e.g. from its userData); optional. */
  ownedTasks?: string[];
}

export interface MemberTasks {
  /** The tasks of the target assignment: those the member runs once the rebalance settles. */
  targetTasks: string[];
  /** The partitions the member gets now (the target's, minus those still owned elsewhere). */
  partitions: TopicPartitions[];
}

export interface TaskAssignmentResult {
  members: Map<string, MemberTasks>;
  /** Some partitions wait for their owners to revoke them: the group rebalances again. */
  followUp: boolean;
}

/** The target assignment's partitions for each member, before the cooperative step. */
export function targetAssignment(
  tasks: TaskSpec[],
  members: Array<{ memberId: string; ownedTasks: string[] }>,
): Map<string, { tasks: string[]; partitions: TopicPartitions[] }> {
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const plan = assignTasks(
    tasks.map((t) => t.id),
    members,
  );
  const result = new Map<string, { tasks: string[]; partitions: TopicPartitions[] }>();
  for (const [memberId, taskIds] of plan) {
    const keys = taskIds.flatMap((id) => byId.get(id)!.inputs.map((i) => partitionKey(i.topic, i.partition)));
    result.set(memberId, { tasks: taskIds, partitions: fromKeys(keys) });
  }
  return result;
}

/** The tasks whose input partitions the member owns (one is enough: they move together). */
export function tasksOwned(tasks: TaskSpec[], owned: Set<PartitionKey>): string[] {
  return tasks
    .filter((t) => t.inputs.some((i) => owned.has(partitionKey(i.topic, i.partition))))
    .map((t) => t.id);
}

/**
 * The leader's assignment: sticky and co-partitioned targets, then KIP-429's withholding of
 * partitions that still belong to someone else.
 */
export function assignStreamsGroup(
  subtopologies: SubtopologyTopics[],
  partitionCount: (topic: string) => number,
  members: TaskAssignmentMember[],
): TaskAssignmentResult {
  const tasks = tasksFor(subtopologies, partitionCount);
  const owned = validOwnership(members);
  const states = members.map((m) => ({
    memberId: m.memberId,
    ownedTasks: [...new Set([...tasksOwned(tasks, owned.get(m.memberId)!), ...(m.ownedTasks ?? [])])],
  }));
  const target = targetAssignment(tasks, states);
  const { assignment, followUp } = cooperativeAssign(
    owned,
    new Map([...target].map(([id, t]) => [id, t.partitions])),
  );
  const result = new Map<string, MemberTasks>();
  for (const [memberId, t] of target)
    result.set(memberId, { targetTasks: t.tasks, partitions: assignment.get(memberId) ?? [] });
  return { members: result, followUp };
}

/** Kafka Streams' protocol name: Java tools show it as the group's assignment strategy. */
export const STREAMS_PROTOCOL_NAME = 'stream';

/**
 * The group assignor of a kstreams app. userData stays the runtime's: `previousTasks` reads a
 * member's, `assignmentUserData` writes a member's from its target tasks (Kafka Streams'
 * SubscriptionInfo and AssignmentInfo).
 */
export function streamsAssignor(options: {
  subtopologies: () => SubtopologyTopics[];
  /** The tasks a member holds state for, read from its userData (Kafka Streams' prevTasks). */
  previousTasks?: (userData: Buffer | null) => string[];
  assignmentUserData?: (memberId: string, targetTasks: string[]) => Buffer | null;
}): GroupAssignor {
  return {
    name: STREAMS_PROTOCOL_NAME,
    assign(members, partitionCount) {
      const result = assignStreamsGroup(
        options.subtopologies(),
        partitionCount,
        members.map((m) => ({
          memberId: m.memberId,
          ownedPartitions: m.subscription.ownedPartitions,
          generationId: m.subscription.generationId,
          ownedTasks: options.previousTasks?.(m.subscription.userData) ?? [],
        })),
      );
      const plan = new Map<string, Assignment>();
      for (const [memberId, t] of result.members)
        plan.set(memberId, {
          partitions: t.partitions,
          userData: options.assignmentUserData?.(memberId, t.targetTasks) ?? null,
        });
      return plan;
    },
  };
}
