// When is an app done? Checks the parent polls while the app runs: one or two admin requests
// per poll, plus (at_least_once) reading the output once the record count says it may be done.
import type { Admin } from 'kafkajs';
import { endOffsets } from './cluster.ts';
import type { OutputTracker } from './output-tracker.ts';

export interface Progress {
  done: boolean;
  /** When the checked state was read: the app was done by then. */
  at: number;
  /** For the log line while waiting. */
  detail: string;
}

export type ProgressCheck = () => Promise<Progress>;

/**
 * Non-transactional output (kafkajs app, kstreams at_least_once): every record is one offset,
 * so the summed end offsets count the count records written. Fewer than one per word: not done.
 * At least one per word: done if, in the output as it stood then, every word's latest count is
 * at least its true count. (A clean run writes exactly one record per word; after a rebalance an
 * at_least_once app may write duplicates, and then the record count alone would stop it early.)
 */
export function outputComplete(
  admin: Admin,
  tracker: OutputTracker,
  outputTopic: string,
  totalWords: number,
): ProgressCheck {
  return async () => {
    const ends = await endOffsets(admin, outputTopic);
    const at = Date.now();
    let records = 0;
    for (const end of ends.values()) records += end;
    if (records < totalWords) return { done: false, at, detail: `${records}/${totalWords} output records` };
    const state = await tracker.readUntil(ends, 120_000);
    return {
      done: state.behind === 0,
      at,
      detail: `${records} output records, ${state.behind} words not yet at their count`,
    };
  };
}

/**
 * exactly_once: the output topic's end offsets also count transaction markers, so they are not
 * a record count. A task's output becomes visible in the same transaction that commits its input
 * offsets, so the app is done when the group's committed offsets reach the end of the input topic
 * and of every repartition topic. The repartition topics are written transactionally: their last
 * entry per partition is a commit marker, which the app never consumes as a record, so there the
 * committed offset may stop one short of the end (it is the offset after the last record). The
 * group offsets are read before the end offsets: once the input is fully committed, every
 * repartition record is written and committed too, so the end offsets read after are final.
 */
export function committedThroughEnd(
  admin: Admin,
  groupId: string,
  inputTopic: string,
  repartitionTopics: string[],
): ProgressCheck {
  return async () => {
    const topics = [inputTopic, ...repartitionTopics];
    const committed = new Map<string, number>();
    for (const t of await admin.fetchOffsets({ groupId, topics })) {
      for (const p of t.partitions) committed.set(`${t.topic}:${p.partition}`, Math.max(0, Number(p.offset)));
    }
    let done = true;
    const parts: string[] = [];
    for (const topic of topics) {
      const slack = topic === inputTopic ? 0 : 1;
      let behind = 0;
      for (const [partition, end] of await endOffsets(admin, topic)) {
        const at = committed.get(`${topic}:${partition}`) ?? 0;
        if (at < end - slack) {
          done = false;
          behind += end - at;
        }
      }
      parts.push(`${topic === inputTopic ? 'input' : 'repartition'} lag ${behind}`);
    }
    return { done, at: Date.now(), detail: parts.join(', ') };
  };
}

/**
 * at_least_once with the record cache on: the output waits in the cache until the next commit
 * (every 30 s by default), so it cannot tell when processing ended. The app's own count of
 * processed records can: every input line and every repartitioned word once. What the cache
 * still holds is written when the app is stopped (a close commits) and verified after.
 */
export function processedThrough(processed: () => number | undefined, expected: number): ProgressCheck {
  return async () => {
    const count = processed() ?? 0;
    return {
      done: count >= expected,
      at: Date.now(),
      detail: `${count}/${expected} records processed (input lines and repartitioned words)`,
    };
  };
}
