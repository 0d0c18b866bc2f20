// Whether an app has caught up with its input: its consumer group has committed the input's end
// offsets.
import type { Admin } from 'kafkajs';

export interface InputProgress {
  /** Sum over partitions of the group's committed offsets (records processed and committed). */
  committed: number;
  /** Sum over partitions of the end offsets (records written). */
  end: number;
  /** Every partition's committed offset equals its end offset. */
  caughtUp: boolean;
}

export async function inputProgress(admin: Admin, groupId: string, topic: string): Promise<InputProgress> {
  const [ends, groupOffsets] = await Promise.all([
    admin.fetchTopicOffsets(topic),
    admin.fetchOffsets({ groupId, topics: [topic] }),
  ]);
  const committedBy = new Map(
    (groupOffsets.find((t) => t.topic === topic)?.partitions ?? []).map((p) => [
      p.partition,
      Math.max(0, Number(p.offset)),
    ]),
  );
  let committed = 0;
  let end = 0;
  let caughtUp = true;
  for (const p of ends) {
    const c = committedBy.get(p.partition) ?? 0;
    committed += c;
    end += Number(p.high);
    if (c < Number(p.high)) caughtUp = false;
  }
  return { committed, end, caughtUp };
}
