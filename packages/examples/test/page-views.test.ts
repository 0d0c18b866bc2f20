// The page-views topology in the test driver: a small hand-worked case, then the generator's data,
// whose final per-minute counts and sessions must equal what the generator's truth functions say.
import { Serdes, WindowedSerdes } from '@kstreams/core';
import { TopologyTestDriver } from '@kstreams/core/testing';
import { describe, expect, it } from 'vitest';
import { checkFinalWindows, describeCheck, isRight } from '../src/page-views/final-windows.ts';
import {
  countsPerMinute,
  generatePageViews,
  type PageView,
  sessionsPerUser,
  windowKey,
} from '../src/page-views/generator.ts';
import {
  MINUTE_MS,
  pageViewSerde,
  pageViewsTopology,
  SESSIONS_STORE,
  type Session,
  VIEWS_STORE,
} from '../src/page-views/topology.ts';

const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);

async function run(views: readonly PageView[], rawValues = false) {
  const driver = new TopologyTestDriver(pageViewsTopology('views', 'per-minute'));
  const input = driver.createInputTopic(
    'views',
    Serdes.String(),
    rawValues ? Serdes.String() : pageViewSerde,
  );
  const output = driver.createOutputTopic(
    'per-minute',
    WindowedSerdes.timeWindowedSerdeFrom(Serdes.String(), MINUTE_MS),
    Serdes.Long(),
  );
  for (const v of views) await input.pipeInput(v.user, v.page, v.timestamp);
  return { driver, output };
}

describe('page-views topology', () => {
  it('emits one final count per user and minute once the minute and its grace have passed', async () => {
    const s = 1_000;
    const { driver, output } = await run(
      [
        { user: 'alice', page: '{"page":"/"}', timestamp: T0 + 5 * s },
        { user: 'alice', page: '/pricing', timestamp: T0 + 50 * s },
        { user: 'bob', page: '{"page":"/cart","ref":"ad"}', timestamp: T0 + 61 * s },
        // 15 s after the last one but before the minute's grace (20 s) is over: still counted.
        { user: 'alice', page: '/cart', timestamp: T0 + 59 * s },
        // Stream time 80 s: minute 0 (end 60 s) closes at 60 + 20 s.
        { user: 'bob', page: '/', timestamp: T0 + 80 * s },
        // Too late for minute 0 (stream time 80 s >= 60 s + grace): dropped there; its session is
        // open much longer (gap 30 min), so the session counts it.
        { user: 'alice', page: '/', timestamp: T0 + 30 * s },
      ],
      true,
    );
    expect(output.readRecordsToList().map((r) => [r.key, r.value, r.timestamp])).toEqual([
      [{ key: 'alice', window: { start: T0, end: T0 + MINUTE_MS } }, 3, T0 + 59 * s],
    ]);
    expect(driver.droppedRecordsTotal).toBe(1);
    const sessions = driver.getSessionStore<string, Session>(SESSIONS_STORE);
    const alice = [];
    for await (const e of sessions.fetch('alice')) alice.push(e);
    expect(alice).toEqual([
      {
        key: { key: 'alice', start: T0 + 5 * s, end: T0 + 59 * s },
        value: { views: 4, pages: ['/', '/cart', '/pricing'] },
      },
    ]);
    await driver.close();
  });

  it('the final-window check finds missing, duplicated, wrong and unexpected windows', () => {
    const truth = new Map([
      [windowKey('a', 0), 2],
      [windowKey('a', MINUTE_MS), 1],
      [windowKey('b', 0), 4],
    ]);
    const w = (user: string, start: number, views: number) => ({
      user,
      start,
      end: start + MINUTE_MS,
      views,
    });
    expect(isRight(checkFinalWindows([w('a', 0, 2), w('a', MINUTE_MS, 1), w('b', 0, 4)], truth))).toBe(true);
    const check = checkFinalWindows([w('a', 0, 2), w('a', 0, 2), w('b', 0, 3), w('c', 0, 1)], truth);
    expect(check).toEqual({
      right: 0,
      missing: [windowKey('a', MINUTE_MS)],
      duplicated: [windowKey('a', 0)],
      wrong: [{ window: windowKey('b', 0), got: 3, expected: 4 }],
      unexpected: [windowKey('c', 0)],
    });
    expect(isRight(check)).toBe(false);
    expect(describeCheck(check)).toBe(
      '1 windows missing (a 60000); 1 windows emitted more than once (a 0); ' +
        '1 windows with a wrong count ({"window":"b 0","got":3,"expected":4}); 1 windows that the data does not have (c 0)',
    );
  });

  it('rejects a JSON page view without a page, saying what it needs', () => {
    expect(() => pageViewSerde.deserialize(Buffer.from('{"url":"/"}'))).toThrow(
      /needs a string "page" field/,
    );
    expect(pageViewSerde.deserialize(Buffer.from('/plain'))).toBe('/plain');
  });

  it("gives exactly the generator's final counts and sessions", async () => {
    const data = generatePageViews({ seed: 7, users: 20, hours: 2, startMs: T0, partitions: 1 });
    expect(data.outOfOrder).toBeGreaterThan(0);
    const { driver, output } = await run([...data.views, ...data.endOfData]);
    const finals = output.readRecordsToList();
    const got = new Map<string, number>();
    for (const r of finals) {
      const key = windowKey(r.key!.key, r.key!.window.start);
      expect(got.has(key), `${key} emitted twice`).toBe(false);
      got.set(key, r.value!);
    }
    expect(got).toEqual(countsPerMinute(data.views));
    expect(driver.droppedRecordsTotal).toBe(0);

    const store = driver.getSessionStore<string, Session>(SESSIONS_STORE);
    for (const [user, sessions] of sessionsPerUser(data.views)) {
      const stored = [];
      for await (const { key, value } of store.fetch(user))
        stored.push({ start: key.start, end: key.end, ...value });
      expect(stored, user).toEqual(sessions);
    }
    // The window store keeps the minutes for queries (retention one day).
    const windows = driver.getWindowStore<string, number>(VIEWS_STORE);
    const first = data.views[0]!;
    const minute = first.timestamp - (first.timestamp % MINUTE_MS);
    expect(windows.fetch(first.user, minute)).toBe(got.get(windowKey(first.user, minute)));
    await driver.close();
  });
});
