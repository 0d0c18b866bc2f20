// The high-availability assignor decides per instance; the group protocol assigns per member. Each
// instance's tasks are split over its members as Kafka Streams splits a client's tasks over its
// stream threads: actives sticky and balanced (the sticky assignor, which also spreads each
// sub-topology), then standbys and warm-ups the same way on their own.
import type { ClientTasks } from './high-availability-task-assignor.ts';
import { assignTasks, type MemberState } from './sticky-task-assignor.ts';

export interface MemberTaskSplit {
  active: string[];
  /** Standbys and warm-ups: a member runs both as standby tasks. */
  standby: string[];
}

/**
 * `members`: the instance's members with the tasks each held before (active or standby), so that
 * a task stays on the member (thread) whose stores and changelog position it has.
 */
export function splitOverMembers(
  tasks: ClientTasks,
  members: readonly MemberState[],
): Map<string, MemberTaskSplit> {
  if (members.length === 0 && tasks.active.length + tasks.standby.length + tasks.warmup.length > 0)
    throw new Error('an instance with tasks but no members: group members by process id before splitting');
  const active = assignTasks(tasks.active, [...members]);
  const standby = assignTasks([...tasks.standby, ...tasks.warmup], [...members]);
  const result = new Map<string, MemberTaskSplit>();
  for (const { memberId } of members)
    result.set(memberId, { active: active.get(memberId) ?? [], standby: standby.get(memberId) ?? [] });
  return result;
}
