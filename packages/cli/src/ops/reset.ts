// `kstreams reset`: Kafka Streams' application reset tool. Refuses while the group has members;
// moves the committed offsets of the input topics; deletes the internal topics
// (`<applicationId>-…-repartition` / `-changelog`); wipes or names the local state dir.
// With dryRun every action is only printed.
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Admin } from 'kafkajs';
import { describeMember, groupMembers } from './group.ts';
import type { ResetTarget } from './reset-time.ts';

export interface ResetOptions {
  applicationId: string;
  inputTopics: string[];
  intermediateTopics: string[];
  target: ResetTarget;
  localState?: string;
  /** Internal topics the topology names (from --topology), besides those found by prefix. */
  topologyInternalTopics?: string[];
  dryRun: boolean;
}

export class ActiveMembersError extends Error {}

/** Runs the reset and returns the lines that tell what was (or, dry, would be) done. */
export async function resetApplication(admin: Admin, o: ResetOptions): Promise<string[]> {
  const lines: string[] = [];
  const say = (s: string) => lines.push(o.dryRun ? `(dry run) ${s}` : s);
  const members = await groupMembers(admin, o.applicationId);
  if (members.length > 0) {
    throw new ActiveMembersError(
      `consumer group ${o.applicationId} has active members; stop every instance first:\n${members
        .map((m) => `  ${describeMember(m)}`)
        .join('\n')}`,
    );
  }
  const existing = new Set(await admin.listTopics());
  for (const topic of o.inputTopics) {
    if (!existing.has(topic)) {
      say(`input topic ${topic} does not exist: skipped`);
      continue;
    }
    const partitions = await targetOffsets(admin, topic, o.target);
    const [now] = await admin.fetchOffsets({ groupId: o.applicationId, topics: [topic] });
    const from = (p: number) => {
      const c = now?.partitions.find((x) => x.partition === p)?.offset;
      return c === undefined || Number(c) < 0 ? 'none' : c;
    };
    say(
      `reset ${o.applicationId} on ${topic}: ${partitions.map((p) => `p${p.partition} ${from(p.partition)} → ${p.offset}`).join(', ')}`,
    );
    if (!o.dryRun) await admin.setOffsets({ groupId: o.applicationId, topic, partitions });
  }
  // Intermediate topics (through/repartition by the user): skip to their end, as Java's tool.
  for (const topic of o.intermediateTopics) {
    if (!existing.has(topic)) continue;
    const partitions = await targetOffsets(admin, topic, { kind: 'latest' });
    say(`seek ${o.applicationId} to the end of intermediate ${topic}`);
    if (!o.dryRun) await admin.setOffsets({ groupId: o.applicationId, topic, partitions });
  }
  const internal = internalTopics([...existing], o.applicationId, o.topologyInternalTopics ?? []);
  for (const topic of internal) say(`delete internal topic ${topic}`);
  if (!o.dryRun && internal.length > 0) await admin.deleteTopics({ topics: internal });
  // The broker drops the group's offsets of a deleted topic, so the rerun reads it from 0.
  if (o.localState) {
    const dir = join(o.localState, o.applicationId);
    say(existsSync(dir) ? `delete local state ${dir}` : `no local state at ${dir}`);
    if (!o.dryRun) rmSync(dir, { recursive: true, force: true });
  } else {
    lines.push(
      `local state is not touched: delete <stateDir>/${o.applicationId} on every instance, or call app.cleanUp() before start`,
    );
  }
  return lines;
}

/** What Java's StreamsResetter takes for an internal topic, after the application id prefix. */
const INTERNAL_TOPIC =
  /(-repartition|-changelog|-subscription-registration-topic|-subscription-response-topic|-KTABLE-FK-JOIN-SUBSCRIPTION-(REGISTRATION|RESPONSE)-\d+-topic)$/;

/**
 * `<applicationId>-…-repartition` and `…-changelog` topics, the foreign-key joins' subscription
 * topics, and those the topology names.
 */
export function internalTopics(all: string[], applicationId: string, named: string[]): string[] {
  const mine = all.filter((t) => t.startsWith(`${applicationId}-`) && INTERNAL_TOPIC.test(t));
  const set = new Set([...mine, ...named.filter((t) => all.includes(t))]);
  return [...set].sort();
}

async function targetOffsets(admin: Admin, topic: string, target: ResetTarget) {
  const offsets = (await admin.fetchTopicOffsets(topic)).sort((a, b) => a.partition - b.partition);
  if (target.kind === 'timestamp') {
    const byTime = await admin.fetchTopicOffsetsByTimestamp(topic, target.ms);
    return byTime
      .sort((a, b) => a.partition - b.partition)
      .map((p) => ({
        partition: p.partition,
        // No record at or after the time: the end.
        offset:
          Number(p.offset) >= 0 ? p.offset : (offsets.find((o) => o.partition === p.partition)?.high ?? '0'),
      }));
  }
  return offsets.map((p) => ({
    partition: p.partition,
    offset: target.kind === 'earliest' ? p.low : p.high,
  }));
}
