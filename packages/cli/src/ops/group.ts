// The consumer group of an app (group id = application id): its live members and who owns which
// partition. Assignments are decoded with the consumer protocol's layout, which the project's
// assignor (core/src/kafka/assignor.ts) keeps, its own data riding in userData.
import { type Admin, AssignerProtocol } from 'kafkajs';

export interface GroupMember {
  memberId: string;
  clientId: string;
  host: string;
  partitions: { topic: string; partition: number }[];
  /** The topics the member subscribed to (known also before it has an assignment). */
  subscribed: string[];
}

export async function groupMembers(admin: Admin, groupId: string): Promise<GroupMember[]> {
  const { groups } = await admin.describeGroups([groupId]);
  const group = groups[0];
  if (!group) return [];
  return group.members.map((m) => {
    const partitions: GroupMember['partitions'] = [];
    let subscribed: string[] = [];
    try {
      subscribed = AssignerProtocol.MemberMetadata.decode(m.memberMetadata)?.topics ?? [];
    } catch {
      // not the consumer protocol's layout
    }
    try {
      const decoded = AssignerProtocol.MemberAssignment.decode(m.memberAssignment);
      for (const [topic, ps] of Object.entries(decoded?.assignment ?? {})) {
        for (const partition of ps) partitions.push({ topic, partition });
      }
    } catch {
      // A member still joining has no assignment yet.
    }
    return { memberId: m.memberId, clientId: m.clientId, host: m.clientHost, partitions, subscribed };
  });
}

export function describeMember(m: GroupMember): string {
  return `${m.memberId} (client ${m.clientId}, host ${m.host})`;
}

/** The topics the group has committed offsets for. */
export async function committedTopics(admin: Admin, groupId: string): Promise<string[]> {
  const all = await admin.fetchOffsets({ groupId });
  return all.filter((t) => t.partitions.some((p) => Number(p.offset) >= 0)).map((t) => t.topic);
}
