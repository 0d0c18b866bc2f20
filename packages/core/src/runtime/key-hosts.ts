// Which instances hold a task's state, for queryMetadataForKey: the active's host (the member
// that owns the task's input partition) and the standbys' hosts (the members whose assignment info
// v2 lists the task as standby), by their `applicationServer` (Kafka Streams' KeyQueryMetadata
// activeHost and standbyHosts). Pure, so that it is tested without a broker.
import type { GroupMemberDescription } from '../kafka/admin.ts';

export interface TaskHosts {
  /** The active's `host:port`; undefined when unknown (no owner, or it has no applicationServer). */
  host?: string;
  /** The standbys' `host:port`s, sorted; never the active's host. */
  standbyHosts: string[];
}

export function taskHosts(
  members: readonly GroupMemberDescription[],
  task: { id: string; partition: number; sourceTopics: readonly string[] },
  local: { active: boolean; standby: boolean; host?: string | undefined },
): TaskHosts {
  const host = local.active
    ? local.host
    : members.find((m) => task.sourceTopics.some((t) => (m.assignment[t] ?? []).includes(task.partition)))
        ?.applicationServer;
  const standbys = new Set<string>();
  for (const m of members)
    if (m.applicationServer !== undefined && (m.standbyTasks ?? []).includes(task.id))
      standbys.add(m.applicationServer);
  // This instance's own standby counts even before describeGroups shows its new assignment.
  if (local.standby && local.host !== undefined) standbys.add(local.host);
  if (host !== undefined) standbys.delete(host);
  return { ...(host === undefined ? {} : { host }), standbyHosts: [...standbys].sort() };
}
