// The cooperative incremental protocol (KIP-429) as pure functions. A partition changes owner in two
// rebalances: in the first the leader leaves it out of both members' assignments, so its owner
// revokes it (commits and closes the task) while keeping everything else; the owner then rejoins at
// once, and in the follow-up rebalance nobody owns it any more, so the new owner gets it. No
// partition is ever owned by two members, and partitions that stay never stop.
import type { TopicPartitions } from './consumer-protocol.ts';

/** A partition as one string: topic and partition are unambiguous as `topic` cannot hold a NUL. */
export type PartitionKey = string;
export const partitionKey = (topic: string, partition: number): PartitionKey => `${topic}\u0000${partition}`;

export function toKeys(list: TopicPartitions[]): Set<PartitionKey> {
  const keys = new Set<PartitionKey>();
  for (const { topic, partitions } of list) for (const p of partitions) keys.add(partitionKey(topic, p));
  return keys;
}

/** Keys back to topics with sorted partitions, topics sorted (a stable wire form). */
export function fromKeys(keys: Iterable<PartitionKey>): TopicPartitions[] {
  const byTopic = new Map<string, number[]>();
  for (const key of keys) {
    const at = key.lastIndexOf('\u0000');
    const topic = key.slice(0, at);
    byTopic.set(topic, [...(byTopic.get(topic) ?? []), Number(key.slice(at + 1))]);
  }
  return [...byTopic.keys()]
    .sort()
    .map((topic) => ({ topic, partitions: byTopic.get(topic)!.sort((a, b) => a - b) }));
}

export interface OwnedClaim {
  memberId: string;
  ownedPartitions: TopicPartitions[];
  /** The generation the member got them in (ConsumerProtocolSubscription v2+; -1: unknown). */
  generationId: number;
}

/**
 * What each member validly owns. A member that missed a rebalance (a zombie, or one whose revoke
 * went unseen) may still claim a partition that another member got in a newer generation: the
 * claim from the highest generation wins and the older ones are dropped, as Kafka's sticky
 * assignors do. Equal generations are a conflict no protocol step produces; nobody keeps the
 * partition then, so it is assigned afresh (after both revoke it).
 */
export function validOwnership(claims: OwnedClaim[]): Map<string, Set<PartitionKey>> {
  const best = new Map<PartitionKey, { memberId: string | null; generationId: number }>();
  for (const c of claims) {
    for (const key of toKeys(c.ownedPartitions)) {
      const seen = best.get(key);
      if (seen === undefined || c.generationId > seen.generationId)
        best.set(key, { memberId: c.memberId, generationId: c.generationId });
      else if (c.generationId === seen.generationId)
        best.set(key, { memberId: null, generationId: c.generationId });
    }
  }
  const owned = new Map<string, Set<PartitionKey>>(claims.map((c) => [c.memberId, new Set()]));
  for (const [key, { memberId }] of best) if (memberId !== null) owned.get(memberId)!.add(key);
  return owned;
}

export interface CooperativeAssignment {
  /** What each member gets in this rebalance. */
  assignment: Map<string, TopicPartitions[]>;
  /** Partitions of the target held back because another member must revoke them first. */
  withheld: Map<string, TopicPartitions[]>;
  /** True when something was withheld: the group needs a follow-up rebalance. */
  followUp: boolean;
}

/**
 * The leader's step of KIP-429: the target assignment minus every partition a member is to get
 * that another member still owns. The owner's assignment lacks it too (the target gives it away),
 * so the owner revokes it and rejoins; the follow-up rebalance then hands it over.
 */
export function cooperativeAssign(
  previousOwned: Map<string, Set<PartitionKey>>,
  newTargetAssignment: Map<string, TopicPartitions[]>,
): CooperativeAssignment {
  const ownerOf = new Map<PartitionKey, string>();
  for (const [memberId, keys] of previousOwned) for (const key of keys) ownerOf.set(key, memberId);
  const assignment = new Map<string, TopicPartitions[]>();
  const withheld = new Map<string, TopicPartitions[]>();
  for (const [memberId, target] of newTargetAssignment) {
    const given: PartitionKey[] = [];
    const held: PartitionKey[] = [];
    for (const key of toKeys(target)) {
      const owner = ownerOf.get(key);
      if (owner === undefined || owner === memberId) given.push(key);
      else held.push(key);
    }
    assignment.set(memberId, fromKeys(given));
    if (held.length > 0) withheld.set(memberId, fromKeys(held));
  }
  return { assignment, withheld, followUp: withheld.size > 0 };
}

export interface AssignmentChange {
  /** Owned before, not assigned now: the member closes these (onPartitionsRevoked). */
  revoked: TopicPartitions[];
  /** Assigned now, not owned before: the member opens these (onPartitionsAssigned). */
  added: TopicPartitions[];
  /** Owned and still assigned: they keep processing through the rebalance. */
  kept: TopicPartitions[];
}

/** The member's side: what an assignment changes against what it owns. */
export function assignmentChange(owned: TopicPartitions[], assigned: TopicPartitions[]): AssignmentChange {
  const before = toKeys(owned);
  const after = toKeys(assigned);
  return {
    revoked: fromKeys([...before].filter((k) => !after.has(k))),
    added: fromKeys([...after].filter((k) => !before.has(k))),
    kept: fromKeys([...after].filter((k) => before.has(k))),
  };
}
