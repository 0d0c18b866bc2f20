// State-store benchmark.
// Part 1: puts and gets per second through TransactionalBuffer over LevelKeyValueStore (commit
// every 10k puts) against raw classic-level (chained batches of the same size, getSync), as
// ratios measured in this run, by wall clock and by CPU time (steadier on a shared machine).
// Part 2: peak RSS of a separate process holding 1,000,000 keys through the buffer (< 300 MB).
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LevelKeyValueStore, TransactionalBuffer } from '../packages/state-store/src/index.ts';

// bench/ has no package.json of its own: take classic-level from the package that depends on it,
// typed with just what the baseline uses.
interface RawBatch {
  readonly length: number;
  put(key: Buffer, value: Buffer): void;
  write(options: { sync: boolean }): Promise<void>;
  close(): Promise<void>;
}
interface RawDb {
  open(): Promise<void>;
  batch(): RawBatch;
  getSync(key: Buffer): Buffer | undefined;
  close(): Promise<void>;
}
const { ClassicLevel } = createRequire(new URL('../packages/state-store/package.json', import.meta.url))(
  'classic-level',
) as { ClassicLevel: new (location: string, options: object) => RawDb };

const COMMIT_EVERY = 10_000;
const THROUGHPUT_KEYS = 100_000;
const ROUNDS = 5;
const BUFFERED_DURING_GETS = 1_000;
const RSS_KEYS = 1_000_000;
const RSS_TARGET_MB = 300;
const VALUE_SIZE = 100;

const key = (i: number) => Buffer.from(`key-${String(i).padStart(8, '0')}`);
const value = (i: number) => Buffer.from(`value-${i}-`.padEnd(VALUE_SIZE, 'x'));

/** A fixed pseudo-random permutation, so neither writes nor reads walk the keys in order. */
function shuffled(count: number): number[] {
  const order = Array.from({ length: count }, (_, i) => i);
  let seed = 42;
  for (let i = count - 1; i > 0; i--) {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    const j = seed % (i + 1);
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}

interface Rate {
  wall: number;
  cpu: number;
}

function startClock(): () => Rate {
  const wall = performance.now();
  const cpu = process.cpuUsage();
  return () => {
    const used = process.cpuUsage(cpu);
    return { wall: (performance.now() - wall) / 1000, cpu: (used.user + used.system) / 1e6 };
  };
}

/** Operations per second from the seconds a clock measured. */
const perSecond = (count: number, seconds: Rate): Rate => ({
  wall: count / seconds.wall,
  cpu: count / seconds.cpu,
});

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const medianRate = (rates: Rate[]): Rate => ({
  wall: median(rates.map((r) => r.wall)),
  cpu: median(rates.map((r) => r.cpu)),
});
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

interface Data {
  order: readonly number[];
  keys: readonly Buffer[];
  values: readonly Buffer[];
}

/** Raw baseline puts: fresh database, chained batches of COMMIT_EVERY, each fsync'ed like a commit. */
async function rawPuts(dir: string, { order, keys, values }: Data): Promise<Rate> {
  const db = new ClassicLevel(dir, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
  await db.open();
  const stop = startClock();
  let batch = db.batch();
  for (let n = 0; n < order.length; n++) {
    const i = order[n]!;
    batch.put(keys[i]!, values[i]!);
    if ((n + 1) % COMMIT_EVERY === 0) {
      await batch.write({ sync: true });
      batch = db.batch();
    }
  }
  if (batch.length > 0) await batch.write({ sync: true });
  else await batch.close();
  const seconds = stop();
  await db.close();
  return perSecond(order.length, seconds);
}

/** Puts through the buffer: fresh database, commit() every COMMIT_EVERY puts (fsync'ed by default). */
async function bufferPuts(dir: string, { order, keys, values }: Data): Promise<Rate> {
  const store = new LevelKeyValueStore({ name: 'bench', location: dir });
  await store.open();
  const buffer = new TransactionalBuffer(store);
  const stop = startClock();
  for (let n = 0; n < order.length; n++) {
    const i = order[n]!;
    buffer.put(keys[i]!, values[i]!);
    if ((n + 1) % COMMIT_EVERY === 0) await buffer.commit();
  }
  await buffer.commit();
  const seconds = stop();
  await store.close();
  return perSecond(order.length, seconds);
}

function timedGets(get: (key: Buffer) => Buffer | undefined, { order, keys }: Data): Rate {
  const stop = startClock();
  let found = 0;
  for (let n = order.length - 1; n >= 0; n--) if (get(keys[order[n]!]!) !== undefined) found++;
  const seconds = stop();
  if (found !== order.length) throw new Error(`found ${found} of ${order.length} keys`);
  return perSecond(order.length, seconds);
}

/** Gets: raw getSync and through a buffer holding some writes, alternating on one database. */
async function gets(dir: string, data: Data): Promise<{ raw: Rate; buffer: Rate }> {
  const raw: Rate[] = [];
  const buffered: Rate[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const db = new ClassicLevel(dir, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
    await db.open();
    raw.push(timedGets((k) => db.getSync(k), data));
    await db.close();

    const store = new LevelKeyValueStore({ name: 'bench', location: dir });
    await store.open();
    const buffer = new TransactionalBuffer(store);
    // Every read consults the buffer first, so give it uncommitted writes as a task would have.
    for (let i = 0; i < BUFFERED_DURING_GETS; i++) buffer.put(Buffer.from(`pending-${i}`), Buffer.from('v'));
    buffered.push(timedGets((k) => buffer.get(k), data));
    await store.close();
  }
  return { raw: medianRate(raw), buffer: medianRate(buffered) };
}

/** Child mode: hold RSS_KEYS keys in a store through the buffer, then report peak RSS. */
async function rssChild(dir: string): Promise<void> {
  const store = new LevelKeyValueStore({ name: 'rss', location: dir });
  await store.open();
  const buffer = new TransactionalBuffer(store);
  const started = performance.now();
  for (let i = 0; i < RSS_KEYS; i++) {
    buffer.put(key(i), value(i));
    if ((i + 1) % COMMIT_EVERY === 0) await buffer.commit();
  }
  await buffer.commit();
  let found = 0;
  for (let i = 0; i < RSS_KEYS; i += 97) if (buffer.get(key(i)) !== undefined) found++;
  const entries = await buffer.approximateNumEntries();
  const seconds = (performance.now() - started) / 1000;
  await store.close();
  const maxRssKb = process.resourceUsage().maxRSS;
  console.log(JSON.stringify({ entries, found, seconds, maxRssKb }));
}

/** Child mode: an idle process started the same way, for the RSS baseline. */
function baselineChild(): void {
  console.log(JSON.stringify({ maxRssKb: process.resourceUsage().maxRSS }));
}

function runChild(mode: string, ...args: string[]): Promise<Record<string, number>> {
  const self = fileURLToPath(import.meta.url);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', self, mode, ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.on('exit', (code) => {
      if (code !== 0) reject(new Error(`${mode} child exited with code ${code}`));
      else resolve(JSON.parse(out.trim().split('\n').pop()!));
    });
  });
}

async function main(): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'kstreams-bench-'));
  try {
    const data: Data = {
      order: shuffled(THROUGHPUT_KEYS),
      keys: Array.from({ length: THROUGHPUT_KEYS }, (_, i) => key(i)),
      values: Array.from({ length: THROUGHPUT_KEYS }, (_, i) => value(i)),
    };
    const putSamples = { raw: [] as Rate[], buffer: [] as Rate[] };
    // Interleaved rounds on fresh databases, so compaction and disk drift hit both alike.
    for (let round = 0; round < ROUNDS; round++) {
      putSamples.raw.push(await rawPuts(join(root, `raw-${round}`), data));
      putSamples.buffer.push(await bufferPuts(join(root, `buffer-${round}`), data));
    }
    const puts = { raw: medianRate(putSamples.raw), buffer: medianRate(putSamples.buffer) };
    const getRates = await gets(join(root, 'raw-0'), data);
    const load = loadavg()[0]!;

    const baseline = await runChild('baseline');
    const rss = await runChild('rss-child', join(root, 'rss'));
    const rssMb = rss.maxRssKb! / 1024;

    console.log(
      `Throughput: ${fmt(THROUGHPUT_KEYS)} keys, ${VALUE_SIZE}-byte values, random order; puts fsync'ed every ` +
        `${fmt(COMMIT_EVERY)} (buffer.commit() vs raw chained batch.write({ sync: true })); gets with ` +
        `${fmt(BUFFERED_DURING_GETS)} writes in the buffer; median of ${ROUNDS} interleaved rounds`,
    );
    const row = (buffer: number, raw: number) => ({
      'buffer + LevelKeyValueStore': fmt(buffer),
      'raw classic-level': fmt(raw),
      'ratio buffer/raw': (buffer / raw).toFixed(2),
    });
    console.table({
      'puts/s (wall clock)': row(puts.buffer.wall, puts.raw.wall),
      'puts per CPU-second': row(puts.buffer.cpu, puts.raw.cpu),
      'gets/s (wall clock)': row(getRates.buffer.wall, getRates.raw.wall),
      'gets per CPU-second': row(getRates.buffer.cpu, getRates.raw.cpu),
    });
    console.log(`1-minute load average after part 1: ${load.toFixed(1)} on ${availableParallelism()} cores.`);
    console.log(
      `Peak RSS holding ${fmt(RSS_KEYS)} keys (separate process, commit every ${fmt(COMMIT_EVERY)}):`,
    );
    console.table({
      'peak RSS (MB)': { value: rssMb.toFixed(1), target: `< ${RSS_TARGET_MB}` },
      'idle process baseline (MB)': { value: (baseline.maxRssKb! / 1024).toFixed(1), target: '' },
      'entries counted': { value: fmt(rss.entries!), target: fmt(RSS_KEYS) },
      'load time (s)': { value: rss.seconds!.toFixed(1), target: '' },
    });
    if (rss.entries !== RSS_KEYS)
      throw new Error(`RSS child holds ${rss.entries} keys, expected ${RSS_KEYS}`);
    console.log(rssMb < RSS_TARGET_MB ? 'RSS target met.' : `RSS target MISSED: ${rssMb.toFixed(1)} MB.`);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

const [mode, arg] = process.argv.slice(2);
if (mode === 'rss-child') await rssChild(arg!);
else if (mode === 'baseline') baselineChild();
else await main();
