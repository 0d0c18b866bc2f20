// Task assignment: which member of the group runs which task. Pure, so that it is tested without
// a broker; kafka/assignor.ts plugs it into the group protocol.

export interface TaskSpec {
  /** `<subtopology>_<partition>` */
  id: string;
  subtopology: number;
  partition: number;
  /** The source topic-partitions the task consumes: partition p of each source topic that has it. */
  inputs: Array<{ topic: string; partition: number }>;
}

export interface SubtopologyTopics {
  id: number;
  sourceTopics: string[];
}

/**
 * The tasks of a topology: one per partition of a sub-topology's widest source topic. A task owns
 * partition p of every source topic of its sub-topology, so co-partitioned inputs meet in one task.
 */
export function tasksFor(
  subtopologies: SubtopologyTopics[],
  partitionCount: (topic: string) => number,
): TaskSpec[] {
  const tasks: TaskSpec[] = [];
  for (const sub of subtopologies) {
    const counts = sub.sourceTopics.map((t) => ({ topic: t, n: partitionCount(t) }));
    const width = Math.max(0, ...counts.map((c) => c.n));
    for (let p = 0; p < width; p++) {
      tasks.push({
        id: `${sub.id}_${p}`,
        subtopology: sub.id,
        partition: p,
        inputs: counts.filter((c) => c.n > p).map((c) => ({ topic: c.topic, partition: p })),
      });
    }
  }
  return tasks;
}

export interface MemberState {
  memberId: string;
  /** Tasks the member ran before this rebalance: kept where balance allows (stickiness). */
  ownedTasks: string[];
}

/**
 * Balanced and sticky: every member gets ⌊T/M⌋ or ⌈T/M⌉ tasks; a member keeps the tasks it
 * already owns as far as that balance allows, so state stays where it was built; the rest go to
 * the members with the fewest tasks of the same sub-topology, then the least loaded.
 */
export function assignTasks(taskIds: string[], members: MemberState[]): Map<string, string[]> {
  const result = new Map<string, string[]>();
  const sorted = [...members].sort((a, b) => a.memberId.localeCompare(b.memberId));
  for (const m of sorted) result.set(m.memberId, []);
  if (sorted.length === 0) return result;
  const floor = Math.floor(taskIds.length / sorted.length);
  let ceilSlots = taskIds.length % sorted.length;
  const remaining = new Set(taskIds);
  const capacity = (assigned: number) => (assigned < floor ? true : assigned === floor && ceilSlots > 0);
  const take = (memberId: string, task: string) => {
    const list = result.get(memberId)!;
    if (list.length === floor) ceilSlots--;
    list.push(task);
    remaining.delete(task);
  };
  // Members that owned more tasks keep theirs first: they hold the most restored state.
  for (const m of [...sorted].sort((a, b) => b.ownedTasks.length - a.ownedTasks.length)) {
    for (const task of [...m.ownedTasks].sort(byPartitionThenSubtopology)) {
      if (remaining.has(task) && capacity(result.get(m.memberId)!.length)) take(m.memberId, task);
    }
  }
  // Each sub-topology is spread over the members on its own: balancing only the totals could give
  // one member all the stateless tasks and another all the stateful ones (and all the queries).
  const load = (memberId: string, sub?: number) =>
    result.get(memberId)!.filter((t) => sub === undefined || subtopologyOf(t) === sub).length;
  for (const task of [...remaining].sort(bySubtopologyThenPartition)) {
    const sub = subtopologyOf(task);
    const target = sorted
      .filter((m) => capacity(result.get(m.memberId)!.length))
      .sort(
        (a, b) => load(a.memberId, sub) - load(b.memberId, sub) || load(a.memberId) - load(b.memberId),
      )[0];
    if (!target) throw new Error(`no member has room for task ${task}: assignment arithmetic is broken`);
    take(target.memberId, task);
  }
  return result;
}

/** A task id `<subtopology>_<partition>` as its two numbers. */
export function parseTaskId(task: string): [subtopology: number, partition: number] {
  return task.split('_').map(Number) as [number, number];
}

function subtopologyOf(task: string): number {
  return parseTaskId(task)[0];
}

function bySubtopologyThenPartition(a: string, b: string): number {
  const [[sa, pa], [sb, pb]] = [parseTaskId(a), parseTaskId(b)];
  return sa - sb || pa - pb;
}

function byPartitionThenSubtopology(a: string, b: string): number {
  const [[sa, pa], [sb, pb]] = [parseTaskId(a), parseTaskId(b)];
  return pa - pb || sa - sb;
}
