// at_least_once's offset commit through the group coordinator, in the member's generation with its
// member id and group.instance.id (OffsetCommit v8): the coordinator refuses the offsets of a member
// that the group has moved past, so a member that lost its partitions cannot overwrite their new
// owner's commits (Java's CommitFailedException).
import type { CoordinatorLink } from './coordinator.ts';
import { COORDINATOR_MOVED, groupError } from './group-errors.ts';
import type { OffsetCommitRequest } from './group-requests.ts';

export interface CommittedOffset {
  topic: string;
  partition: number;
  offset: number;
}

/** The generation a member commits in (Java's ConsumerGroupMetadata). */
export interface MemberGeneration {
  generationId: number;
  memberId: string;
  groupInstanceId: string | null;
}

/** The request's topics: one entry per topic, partitions in the order given. */
export function offsetCommitTopics(offsets: CommittedOffset[]): OffsetCommitRequest['topics'] {
  const byTopic = new Map<string, Array<{ partition: number; offset: number }>>();
  for (const o of offsets) {
    const list = byTopic.get(o.topic) ?? [];
    list.push({ partition: o.partition, offset: o.offset });
    byTopic.set(o.topic, list);
  }
  return [...byTopic].map(([topic, partitions]) => ({ topic, partitions }));
}

/**
 * Commits `offsets` in `generation`. Throws the first partition's error: ILLEGAL_GENERATION,
 * UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID or REBALANCE_IN_PROGRESS as kafkajs' types (error-kinds.ts
 * reads them); a coordinator that moved is looked up again before the (retriable) error is thrown.
 */
export async function commitGroupOffsets(
  link: CoordinatorLink,
  groupId: string,
  generation: MemberGeneration,
  offsets: CommittedOffset[],
): Promise<void> {
  if (offsets.length === 0) return;
  const response = await link.send('OffsetCommit', {
    groupId,
    ...generation,
    topics: offsetCommitTopics(offsets),
  });
  for (const t of response.topics)
    for (const p of t.partitions) {
      if (p.errorCode === 0) continue;
      if (COORDINATOR_MOVED.has(p.errorCode)) await link.findCoordinator().catch(() => {});
      throw groupError(`OffsetCommit of ${t.topic}-${p.partition}`, p.errorCode, groupId);
    }
}
