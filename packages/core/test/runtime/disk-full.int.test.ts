// The state directory's disk fills up mid-run (a small tmpfs, filled with a file): the app stops
// with an error that names the directory and says what to do, commits nothing its stores did not
// keep (exactly_once_v2), and once space is freed a restart on the same directory gives exact
// output. Needs root for the tmpfs mount (the project's test machines run as root).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statfsSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { topicsForThisFile } from '../../../../scripts/test/kafka.ts';
import { KafkaStreams } from '../../src/index.ts';
import { countingTopology } from './fixtures/counting-topology.ts';
import {
  countSequences,
  produce,
  readTopic,
  stopAfterEach,
  testBrokers,
  uniqueName,
  waitFor,
} from './kafka-helpers.ts';

const topics = topicsForThisFile();
const apps = stopAfterEach((app: KafkaStreams) => app.close({ timeoutMs: 30_000 }));

const MOUNT = mkdtempSync(join(tmpdir(), 'kstreams-disk-full-'));
const KEYS = 600;
const ROUNDS = 4;
/** 2 KB keys: 2,400 puts write about 5 MB to the store's log, far more than the space left. */
const key = (i: number) => `k${String(i).padStart(4, '0')}-${'x'.repeat(2_000)}`;

beforeAll(() => {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', MOUNT], { stdio: 'pipe' });
  } catch (error) {
    throw new Error(`this test mounts an 8 MB tmpfs at ${MOUNT}, which needs root (mount failed)`, {
      cause: error,
    });
  }
});
afterAll(() => {
  execFileSync('umount', ['-l', MOUNT]);
  rmSync(MOUNT, { recursive: true, force: true });
});

/** Fills the file system but `leaveBytes`. */
function fill(leaveBytes: number): string {
  const { bavail, bsize } = statfsSync(MOUNT);
  const filler = join(MOUNT, 'filler');
  writeFileSync(filler, Buffer.alloc(Math.max(0, bavail * bsize - leaveBytes)));
  return filler;
}

describe('state directory disk full', () => {
  it('stops naming the directory, and a restart after freeing space gives exact output', async () => {
    const input = await topics.create('disk-in', 1);
    const output = await topics.create('disk-out', 1);
    const applicationId = uniqueName('disk-app');
    topics.cleanUpPrefix(applicationId);
    const records = Array.from({ length: KEYS * ROUNDS }, (_, i) => ({ key: key(i % KEYS), value: 'v' }));
    // 300 records (about 600 KB) a request: the broker takes up to 1 MB.
    for (let i = 0; i < records.length; i += 300) await produce(input, records.slice(i, i + 300));
    const stateDir = join(MOUNT, 'state');
    mkdirSync(stateDir);
    const start = () => {
      const app = new KafkaStreams(countingTopology(input, output), {
        applicationId,
        brokers: testBrokers(),
        processingGuarantee: 'exactly_once_v2',
        stateDir,
        logger: process.env.DISK_LOG ? 'warn' : 'silent',
      });
      apps.push(app);
      return app;
    };
    const filler = fill(1_000_000);
    const first = start();
    const began = Date.now();
    await first.start();
    // At once, not after the 5-minute task timeout of a commit that keeps failing.
    await waitFor(() => first.state === 'ERROR', 60_000, 'ERROR');
    const stoppedMs = Date.now() - began;
    const error = first.error!;
    expect(error.name).toBe('StoreDiskFullError');
    expect(error.message).toContain(stateDir);
    expect(error.message).toMatch(/No space left on device.*Free space there, or set stateDir/);
    await first.close({ timeoutMs: 30_000 });
    const before = await readTopic(output, () => false, { timeoutMs: 2_000 });

    unlinkSync(filler);
    const restarted = Date.now();
    const second = start();
    await second.start();
    const out = await readTopic(output, (r) => r.length >= KEYS * ROUNDS, {
      timeoutMs: 120_000,
      settleMs: 2_000,
    });
    // vitest keeps a passing test's console to itself: the figures go to stderr when asked for.
    if (process.env.DISK_FULL_FIGURES)
      writeSync(
        2,
        `[disk-full] ERROR ${stoppedMs} ms after start, ${before.length} of ${KEYS * ROUNDS} counts committed; ` +
          `after freeing space, exact output ${Date.now() - restarted} ms after the restart\n`,
      );
    const sequences = countSequences(out);
    expect(sequences.size).toBe(KEYS);
    const exact = Array.from({ length: ROUNDS }, (_, i) => i + 1);
    for (let i = 0; i < KEYS; i++) expect(sequences.get(key(i))).toEqual(exact);
    expect(out).toHaveLength(KEYS * ROUNDS);
  });
});
