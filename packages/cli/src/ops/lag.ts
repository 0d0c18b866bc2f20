// `kstreams lag`: per input and repartition partition of the app's group, the committed offset,
// the end offset (high watermark: on a transactional topic the last commit marker takes an
// offset, so a caught-up group shows lag 0 only because it commits past the marker) and the owner.
import type { Admin } from 'kafkajs';
import { committedTopics, groupMembers } from './group.ts';

export interface LagRow {
  topic: string;
  partition: number;
  committed: number | null;
  end: number;
  lag: number;
  owner: string | null;
}

export async function groupLag(admin: Admin, applicationId: string): Promise<LagRow[]> {
  const members = await groupMembers(admin, applicationId);
  const owners = new Map<string, string>();
  for (const m of members) for (const p of m.partitions) owners.set(`${p.topic}:${p.partition}`, m.memberId);
  const topics = new Set(await committedTopics(admin, applicationId));
  for (const m of members) for (const p of m.partitions) topics.add(p.topic);
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
    r.committed === null ? '-' : String(r.committed),
    String(r.end),
    String(r.lag),
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
