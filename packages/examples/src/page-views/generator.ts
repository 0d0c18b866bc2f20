// Page views of simulated users over simulated hours, the same for the same seed: users come in
// bursts of activity (sessions) separated by idle time; a few records are sent late, but never by
// more than the grace, so no record is dropped; one record per partition at the end moves every
// task's stream time past the last windows and sessions so that they close.
import { keysForPartitions } from '../common/partitions.ts';
import { random } from '../common/simulation.ts';
import { GRACE_MS, SESSION_GAP_MS } from './topology.ts';

export interface PageView {
  user: string;
  page: string;
  /** Event time, ms since the epoch (the record's timestamp). */
  timestamp: number;
}

export interface GeneratorOptions {
  seed: number;
  users: number;
  hours: number;
  /** The first moment of the simulated time (ms); views fall in [startMs, startMs + hours). */
  startMs: number;
  /** Partitions of the input topic: one end-of-data record goes to each. */
  partitions: number;
}

export interface GeneratedViews {
  /** In the order to send them: by time, except the out-of-order ones. */
  views: PageView[];
  /** How many views are sent after a view with a later timestamp. */
  outOfOrder: number;
  /** One per partition, after everything, to close the last windows; not page views of a user. */
  endOfData: PageView[];
}

const FIRST_NAMES = [
  'alice',
  'bob',
  'carol',
  'dave',
  'erin',
  'frank',
  'grace',
  'heidi',
  'ivan',
  'judy',
  'mallory',
  'niaj',
  'olivia',
  'peggy',
  'rupert',
  'sybil',
  'trent',
  'uma',
  'victor',
  'wendy',
  'xavier',
  'yara',
  'zoe',
  'arthur',
  'beatrix',
  'cedric',
  'delia',
  'edgar',
  'fiona',
  'gustav',
];
const PAGES = [
  '/',
  '/products',
  '/products/kettle',
  '/products/teapot',
  '/products/mug',
  '/cart',
  '/checkout',
  '/blog',
  '/blog/steeping-times',
  '/pricing',
  '/about',
  '/help',
];
/** The user key of the end-of-data records: `~end-of-data-N`, not a name a user has. */
export const END_OF_DATA_PREFIX = '~end-of-data-';
/** After the simulated hours: later than every window end + grace and session end + gap + grace. */
const END_OF_DATA_AFTER_MS = SESSION_GAP_MS + GRACE_MS + 10 * 60_000;

export function userName(i: number): string {
  const name = FIRST_NAMES[i % FIRST_NAMES.length]!;
  return i < FIRST_NAMES.length ? name : `${name}-${Math.floor(i / FIRST_NAMES.length) + 1}`;
}

/** One user's views: sessions of 2 to ~40 views a few seconds to 3 minutes apart, idle time between. */
function userViews(user: string, rand: () => number, startMs: number, endMs: number): PageView[] {
  const views: PageView[] = [];
  const activity = 0.3 + rand() * 1.4;
  let t = startMs + Math.floor(rand() * 40 * 60_000);
  while (t < endMs) {
    const count = 2 + Math.floor(rand() * 28 * activity);
    let page = PAGES[Math.floor(rand() * PAGES.length)]!;
    for (let v = 0; v < count && t < endMs; v++) {
      views.push({ user, page, timestamp: t });
      // Mostly a few seconds per page, now and then a long read.
      t += 2_000 + Math.floor(rand() ** 3 * 180_000);
      page = PAGES[Math.floor(rand() * PAGES.length)]!;
    }
    // Idle: sometimes under the gap, so that two bursts make one session.
    t += Math.floor((10 + (rand() * 100) / activity) * 60_000);
  }
  return views;
}

export function generatePageViews(options: GeneratorOptions): GeneratedViews {
  const { seed, users, hours, startMs, partitions } = options;
  const rand = random(seed);
  const endMs = startMs + hours * 3_600_000;
  const all: Array<PageView & { sendAt: number }> = [];
  for (let i = 0; i < users; i++) {
    for (const view of userViews(userName(i), rand, startMs, endMs)) {
      // About 3% are sent late: after the views of up to GRACE_MS - 5 s later, so within the grace.
      const delay = rand() < 0.03 ? 2_000 + Math.floor(rand() * (GRACE_MS - 7_000)) : 0;
      all.push({ ...view, sendAt: view.timestamp + delay });
    }
  }
  // Stable: equal send times keep the users' order.
  all.sort((a, b) => a.sendAt - b.sendAt);
  let outOfOrder = 0;
  let latest = Number.NEGATIVE_INFINITY;
  const views = all.map(({ user, page, timestamp }) => {
    if (timestamp < latest) outOfOrder++;
    latest = Math.max(latest, timestamp);
    return { user, page, timestamp };
  });
  const endOfData = keysForPartitions(partitions, END_OF_DATA_PREFIX).map((user) => ({
    user,
    page: '/',
    timestamp: endMs + END_OF_DATA_AFTER_MS,
  }));
  return { views, outOfOrder, endOfData };
}

/** `${user} ${windowStart}` → views, the truth each final per-minute count must equal. */
export function countsPerMinute(views: readonly PageView[], minuteMs = 60_000): Map<string, number> {
  const counts = new Map<string, number>();
  for (const { user, timestamp } of views) {
    const key = windowKey(user, timestamp - (timestamp % minuteMs));
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

export const windowKey = (user: string, start: number) => `${user} ${start}`;

export interface SessionTruth {
  start: number;
  end: number;
  views: number;
  pages: string[];
}

/** Each user's sessions as Kafka Streams forms them: views at most `gap` apart are one session. */
export function sessionsPerUser(
  views: readonly PageView[],
  gap = SESSION_GAP_MS,
): Map<string, SessionTruth[]> {
  const byUser = new Map<string, PageView[]>();
  for (const v of views) {
    const list = byUser.get(v.user);
    if (list) list.push(v);
    else byUser.set(v.user, [v]);
  }
  const sessions = new Map<string, SessionTruth[]>();
  for (const [user, list] of byUser) {
    const mine: SessionTruth[] = [];
    for (const v of [...list].sort((a, b) => a.timestamp - b.timestamp)) {
      const last = mine.at(-1);
      if (last && v.timestamp - last.end <= gap) {
        last.end = v.timestamp;
        last.views++;
        if (!last.pages.includes(v.page)) last.pages = [...last.pages, v.page].sort();
      } else mine.push({ start: v.timestamp, end: v.timestamp, views: 1, pages: [v.page] });
    }
    sessions.set(user, mine);
  }
  return sessions;
}
