// How the thread's changelog reader feeds standbys (standby-feed.ts), with a fake reader: a large
// batch is applied in sections of STANDBY_SECTION_RECORDS (so the thread's other sections
// interleave), a batch gone stale half-way is dropped from there, and pausing pauses every
// followed partition, those followed later included, until resumed.
import { describe, expect, it } from 'vitest';
import type { ChangelogPartitionReader } from '../../src/kafka/changelog-reader.ts';
import type { FetcherBatch } from '../../src/kafka/partition-fetcher.ts';
import { Mutex } from '../../src/runtime/mutex.ts';
import { STANDBY_SECTION_RECORDS, StandbyFeed } from '../../src/runtime/standby-feed.ts';
import type { StandbyLike } from '../../src/runtime/standby-tasks.ts';
import { CHANGELOG, FakeStandby } from './fakes/fake-standby.ts';

function setup() {
  const readers = new Map<string, ChangelogPartitionReader>();
  const pauses: string[] = [];
  const reader = {
    read: (tp: { topic: string; partition: number }, _offset: number, r: ChangelogPartitionReader) => {
      readers.set(`${tp.topic}-${tp.partition}`, r);
    },
    stop: () => {},
    pause: (tps: Array<{ topic: string; partition: number }>) =>
      pauses.push(`pause ${tps.map((t) => t.partition).join(',')}`),
    resume: (tps: Array<{ topic: string; partition: number }>) =>
      pauses.push(`resume ${tps.map((t) => t.partition).join(',')}`),
  };
  const mutex = new Mutex();
  const feed = new StandbyFeed<StandbyLike>({
    reader,
    admin: { endOffsets: async () => [], startOffsets: async () => [] },
    mutex,
    onError: (e) => {
      throw e;
    },
  });
  return { feed, readers, pauses, mutex };
}

function batch(partition: number, from: number, count: number, stale: () => boolean = () => false) {
  const resolved: number[] = [];
  const b: FetcherBatch = {
    topic: CHANGELOG,
    partition,
    messages: Array.from({ length: count }, (_, i) => ({
      key: Buffer.from(`k${i}`),
      value: Buffer.from('1'),
      timestamp: '0',
      attributes: 0,
      offset: String(from + i),
      headers: {},
    })),
    // A transaction marker after the records.
    lastOffset: from + count,
    highWatermark: from + count + 1,
    endOffset: from + count + 1,
    isStale: stale,
    resolveOffset: (o) => resolved.push(o),
  };
  return { b, resolved };
}

describe('StandbyFeed', () => {
  it('applies a large batch in sections, each moving the position past its last record', async () => {
    const { feed, readers } = setup();
    const calls: string[] = [];
    const standby = new FakeStandby('0_1', calls);
    await standby.initialize();
    feed.follow(standby, standby.changelogOffsets());
    const records = 2 * STANDBY_SECTION_RECORDS + 500;
    const { b, resolved } = batch(1, 0, records);
    await readers.get(`${CHANGELOG}-1`)!.onBatch(b);
    expect(calls.slice(1)).toEqual([
      `0_1.standby.update(${STANDBY_SECTION_RECORDS})`,
      `0_1.standby.update(${STANDBY_SECTION_RECORDS})`,
      '0_1.standby.update(500)',
    ]);
    expect(resolved).toEqual([STANDBY_SECTION_RECORDS - 1, 2 * STANDBY_SECTION_RECORDS - 1, records]);
    expect(standby.position).toBe(records + 1);
  });

  it('lets other sections of the thread run between two sections of one batch', async () => {
    const { feed, readers, mutex } = setup();
    const calls: string[] = [];
    const standby = new FakeStandby('0_1', calls);
    await standby.initialize();
    feed.follow(standby, standby.changelogOffsets());
    const applying = readers.get(`${CHANGELOG}-1`)!.onBatch(batch(1, 0, 2 * STANDBY_SECTION_RECORDS).b);
    // Queued while the first section runs: it runs before the second.
    const commit = mutex.run(() => calls.push('commit'));
    await Promise.all([applying, commit]);
    expect(calls.slice(1)).toEqual([
      `0_1.standby.update(${STANDBY_SECTION_RECORDS})`,
      'commit',
      `0_1.standby.update(${STANDBY_SECTION_RECORDS})`,
    ]);
  });

  it('drops the rest of a batch that went stale (paused or unfollowed) half-way', async () => {
    const { feed, readers } = setup();
    const calls: string[] = [];
    const standby = new FakeStandby('0_1', calls);
    await standby.initialize();
    feed.follow(standby, standby.changelogOffsets());
    // Stale once its first section is applied (a pause or unfollow came meanwhile).
    const { b } = batch(1, 0, 3 * STANDBY_SECTION_RECORDS, () => calls.length > 1);
    await readers.get(`${CHANGELOG}-1`)!.onBatch(b);
    expect(calls.slice(1)).toEqual([`0_1.standby.update(${STANDBY_SECTION_RECORDS})`]);
    expect(standby.position).toBe(STANDBY_SECTION_RECORDS);
  });

  it('pauses every followed partition, and those followed while paused, until resumed', async () => {
    const { feed, pauses } = setup();
    const a = new FakeStandby('0_1', []);
    const b = new FakeStandby('0_2', []);
    await a.initialize();
    await b.initialize();
    feed.follow(a, a.changelogOffsets());
    feed.setPaused(true);
    feed.setPaused(true);
    feed.follow(b, b.changelogOffsets());
    feed.setPaused(false);
    expect(pauses).toEqual(['pause 1', 'pause 2', 'resume 1,2']);
  });
});
