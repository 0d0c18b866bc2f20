// Window store benchmark: a windowed aggregation's writes (1,000 keys, 10 s tumbling windows,
// stream time advancing 10 ms per record) through a TransactionalBuffer over the segmented
// LevelDB window store (retention 120 s, segments of 60 s), against the same writes into one
// LevelKeyValueStore that never expires anything. Reports ratios measured in this run: puts,
// gets of live windows, and one key's window fetch (a range), per CPU-second, plus the entries
// each store holds at the end (retention is what keeps the segmented one bounded).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type KeyValueBytesStore,
  LevelKeyValueStore,
  levelWindowBytesStore,
  TransactionalBuffer,
  WindowKeySchema,
} from '../packages/state-store/src/index.ts';

const RECORDS = 100_000;
const KEYS = 1_000;
const STEP_MS = 10;
const WINDOW_MS = 10_000;
const RETENTION_MS = 120_000;
const SEGMENT_MS = 60_000;
const COMMIT_EVERY = 10_000;
const ROUNDS = 3;

const userKeys = Array.from({ length: KEYS }, (_, i) => Buffer.from(`user-${String(i).padStart(4, '0')}`));
const windowOf = (n: number) => Math.floor((n * STEP_MS) / WINDOW_MS) * WINDOW_MS;
const storeKey = (n: number) => WindowKeySchema.toStoreKey(userKeys[n % KEYS]!, windowOf(n));
const countBytes = (n: number) => {
  const out = Buffer.alloc(8);
  out.writeBigInt64BE(BigInt(n));
  return out;
};

function cpuSeconds(run: () => void | Promise<void>): Promise<number> {
  const before = process.cpuUsage();
  return Promise.resolve(run()).then(() => {
    const used = process.cpuUsage(before);
    return (used.user + used.system) / 1e6;
  });
}

interface Result {
  puts: number;
  gets: number;
  fetches: number;
  entries: number;
}

async function measure(store: KeyValueBytesStore): Promise<Result> {
  await store.open();
  const buffer = new TransactionalBuffer(store);
  const putSeconds = await cpuSeconds(async () => {
    for (let n = 0; n < RECORDS; n++) {
      buffer.put(storeKey(n), countBytes(n));
      if ((n + 1) % COMMIT_EVERY === 0) await buffer.commit();
    }
    await buffer.commit();
  });
  // Gets of windows still within retention: the last 60 s of records.
  const recent = Array.from({ length: 6_000 }, (_, i) => storeKey(RECORDS - 1 - i));
  const getSeconds = await cpuSeconds(() => {
    for (let round = 0; round < 10; round++) {
      for (const key of recent) if (buffer.get(key) === undefined) throw new Error('live window missing');
    }
  });
  const now = windowOf(RECORDS - 1);
  let fetched = 0;
  const fetchSeconds = await cpuSeconds(async () => {
    for (let k = 0; k < KEYS; k++) {
      const from = WindowKeySchema.lowerBound(userKeys[k]!, now - 60_000);
      const to = WindowKeySchema.upperBound(userKeys[k]!, now);
      for await (const _ of buffer.range(from, to)) fetched++;
    }
  });
  if (fetched === 0) throw new Error('fetch found nothing');
  const entries = await store.approximateNumEntries();
  await store.close();
  return { puts: RECORDS / putSeconds, gets: 60_000 / getSeconds, fetches: KEYS / fetchSeconds, entries };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

const root = await mkdtemp(join(tmpdir(), 'kstreams-window-bench-'));
try {
  const segmented: Result[] = [];
  const single: Result[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    segmented.push(
      await measure(
        levelWindowBytesStore({
          name: 'counts',
          location: join(root, `segmented-${round}`),
          retentionMs: RETENTION_MS,
          segmentIntervalMs: SEGMENT_MS,
        }),
      ),
    );
    single.push(
      await measure(new LevelKeyValueStore({ name: 'counts', location: join(root, `single-${round}`) })),
    );
  }
  console.log(
    `${fmt(RECORDS)} windowed puts (${KEYS} keys, ${WINDOW_MS / 1000} s windows, ${STEP_MS} ms per record, ` +
      `commit every ${fmt(COMMIT_EVERY)}); retention ${RETENTION_MS / 1000} s in ${SEGMENT_MS / 1000} s segments; ` +
      `median of ${ROUNDS} interleaved rounds, per CPU-second`,
  );
  const row = (pick: (r: Result) => number) => {
    const s = median(segmented.map(pick));
    const one = median(single.map(pick));
    return {
      'segmented window store': fmt(s),
      'one LevelDB, no expiry': fmt(one),
      ratio: (s / one).toFixed(2),
    };
  };
  console.table({
    'puts per CPU-second': row((r) => r.puts),
    'gets per CPU-second': row((r) => r.gets),
    'one-key fetches per CPU-second': row((r) => r.fetches),
    'entries held at the end': row((r) => r.entries),
  });
} finally {
  await rm(root, { recursive: true, force: true });
}
