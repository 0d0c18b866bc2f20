// `kstreams lag`: per input and repartition partition of the app's group, the committed offset,
// the end offset (high watermark: on a transactional topic the last commit marker takes an
// offset, so a caught-up group shows lag 0 only because it commits past the marker) and the owner.
// A partition the group never committed shows its lag from the log start, marked so: that is
// where the app starts reading it (Kafka Streams' auto.offset.reset=earliest).
import type { Admin } from 'kafkajs';
import { committedTopics, groupMembers } from './group.ts';

export interface LagRow {
  topic: string;
  partition: number;
  committed: number | null;
  end: number;
  lag: number;
  /** `committed`: end - committed; `logStart`: never committed, end - the log start offset. */
  lagFrom: 'committed' | 'logStart';
  owner: string | null;
}

/** Nothing to measure: the group does not exist, or it has neither members nor commits. */
export class NoGroupLagError extends Error {}

export async function groupLag(admin: Admin, applicationId: string): Promise<LagRow[]> {
  const members = await groupMembers(admin, applicationId);
  const owners = new Map<string, string>();
  for (const m of members) for (const p of m.partitions) owners.set(`${p.topic}:${p.partition}`, m.memberId);
  const committedTo = await committedTopics(admin, applicationId);
  const topics = new Set(committedTo);
  for (const m of members)
    for (const t of [...m.subscribed, ...m.partitions.map((p) => p.topic)]) topics.add(t);
  if (topics.size === 0) {
    const { groups } = await admin.describeGroups([applicationId]);
    const state = groups[0]?.state;
    throw new NoGroupLagError(
      state === undefined || state === 'Dead'
        ? `no consumer group "${applicationId}" on the cluster: check --application-id (it is the app's applicationId), or start the app first`
        : `consumer group "${applicationId}" (${state}) has no members and never committed: no partitions to measure; start the app`,
    );
  }
  const rows: LagRow[] = [];
  for (const topic of [...topics].sort()) {
    const ends = await admin.fetchTopicOffsets(topic);
    const [committed] = await admin.fetchOffsets({ groupId: applicationId, topics: [topic] });
    for (const e of ends.sort((a, b) => a.partition - b.partition)) {
      const c = committed?.partitions.find((p) => p.partition === e.partition);
      const at = c && Number(c.offset) >= 0 ? Number(c.offset) : null;
      const end = Number(e.high);
      rows.push({
        topic,
        partition: e.partition,
        committed: at,
        end,
        lag: end - (at ?? Number(e.low)),
        lagFrom: at === null ? 'logStart' : 'committed',
        owner: owners.get(`${topic}:${e.partition}`) ?? null,
      });
    }
  }
  return rows;
}

/** Plain aligned columns. */
export function formatLag(rows: LagRow[]): string {
  const head = ['TOPIC', 'PARTITION', 'COMMITTED', 'END', 'LAG', 'OWNER'];
  const cells = rows.map((r) => [
    r.topic,
    String(r.partition),
    r.committed === null ? 'none' : String(r.committed),
    String(r.end),
    r.lagFrom === 'logStart' ? `${r.lag} (from log start)` : String(r.lag),
    r.owner ?? '-',
  ]);
  const all = [head, ...cells];
  const widths = head.map((_, i) => Math.max(...all.map((row) => (row[i] ?? '').length)));
  return all
    .map((row) =>
      row
        .map((c, i) => c.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
