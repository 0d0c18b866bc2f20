// A standby under exactly_once on the real broker: its changelog holds committed and aborted
// transactions; read read_committed (as the instance's changelog reader will under exactly_once),
// the standby's LevelDB store holds only the committed state, and the promoted active's restore
// starts at the standby's checkpoint. A second standby reading read_uncommitted shows the aborted
// values, so the first result is the isolation level's doing.
import { rmSync } from 'node:fs';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { testKafka, topicsForThisFile, uniqueName } from '../../../../scripts/test/kafka.ts';
import { StreamsAdmin } from '../../src/kafka/admin.ts';
import { restoreChangelogs } from '../../src/kafka/restore-consumer.ts';
import { Topology } from '../../src/processor/topology.ts';
import { restoreStart } from '../../src/runtime/restore.ts';
import { StandbyTask } from '../../src/runtime/standby-task.ts';
import { Serdes } from '../../src/serdes/serdes.ts';
import { Stores } from '../../src/state/index.ts';
import { tempStateDir } from './kafka-helpers.ts';

const topics = topicsForThisFile();
const silent = pino({ level: 'silent' });
const long = (n: number) => {
  const b = Buffer.alloc(8);
  b.writeBigInt64BE(BigInt(n));
  return b;
};

function countingTopology(): Topology {
  return new Topology()
    .addSource('src', 'words', { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    .addProcessor('count', () => ({ process() {} }), 'src')
    .addStateStore(Stores.keyValueStoreBuilder('counts', Serdes.String(), Serdes.Long()), 'count');
}

describe('StandbyTask on a transactional changelog', () => {
  const admin = new StreamsAdmin(testKafka());
  const dirs: string[] = [];
  const stateDirFor = () => {
    const dir = tempStateDir();
    dirs.push(dir);
    return dir;
  };
  afterAll(async () => {
    await admin.disconnect();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('applies only committed records when it reads read_committed, and a promotion resumes at its checkpoint', async () => {
    const applicationId = uniqueName('standby-eos');
    topics.cleanUpPrefix(applicationId);
    const changelog = `${applicationId}-counts-changelog`;
    await admin.connect();
    await (await topics.admin()).createTopics({
      topics: [{ topic: changelog, numPartitions: 1 }],
      waitForLeaders: false,
    });
    await admin.waitForTopics([changelog]);

    const producer = testKafka().producer({
      transactionalId: `${applicationId}-0_0`,
      idempotent: true,
      maxInFlightRequests: 1,
    });
    await producer.connect();
    const write = async (entries: Array<[string, number]>, outcome: 'commit' | 'abort') => {
      const t = await producer.transaction();
      await t.send({ topic: changelog, messages: entries.map(([k, v]) => ({ key: k, value: long(v) })) });
      await t[outcome]();
    };
    await write(
      [
        ['a', 1],
        ['b', 1],
      ],
      'commit',
    );
    await write(
      [
        ['a', 999],
        ['c', 999],
      ],
      'abort',
    );
    await write([['b', 2]], 'commit');
    await producer.disconnect();
    // 3 + 2 records, 3 markers. The coordinator writes a transaction's markers after EndTxn has
    // answered, so the last stable offset may lag a moment behind the last commit.
    let [end] = await admin.endOffsets([changelog]);
    for (let i = 0; i < 100 && end!.offset < 8; i++) {
      await new Promise((r) => setTimeout(r, 100));
      [end] = await admin.endOffsets([changelog]);
    }
    expect(end!.offset).toBe(8);

    const standbyIn = (stateDir: string) =>
      new StandbyTask('0_0', {
        config: { applicationId, stateDir },
        topology: countingTopology(),
        logger: silent,
      });
    async function follow(readCommitted: boolean, stateDir: string): Promise<StandbyTask> {
      const standby = standbyIn(stateDir);
      await standby.initialize();
      const [start] = await standby.startPositions(
        () => 0,
        () => end!.offset,
      );
      await restoreChangelogs(testKafka(), { readCommitted, timeoutMs: 30_000 }, [
        {
          topic: changelog,
          partition: 0,
          startOffset: start!.offset,
          endOffset: end!.offset,
          apply: (records, batchEnd) => standby.update(changelog, 0, records, batchEnd),
        },
      ]);
      return standby;
    }
    const value = (task: StandbyTask, key: string) =>
      task.storeFor('counts').get(Buffer.from(key))?.readBigInt64BE(0);

    const stateDir = stateDirFor();
    const committed = await follow(true, stateDir);
    expect([value(committed, 'a'), value(committed, 'b'), value(committed, 'c')]).toEqual([
      1n,
      2n,
      undefined,
    ]);
    const position = committed.changelogOffsets()[0]!.offset;
    expect(position).toBeGreaterThanOrEqual(7); // past b=2 (offset 6); the last marker may be re-read
    expect(committed.offsetSum()).toBe(position);
    await committed.close({ dirty: false });

    // The same folder as the promoted active: its restore reads only from the standby's position.
    const reopened = standbyIn(stateDir);
    await reopened.initialize();
    const plan = restoreStart(
      reopened.changelogOffsets(),
      { topic: changelog, partition: 0 },
      0,
      end!.offset,
    );
    expect(plan.start).toBe(position);
    await reopened.close({ dirty: true });

    const uncommitted = await follow(false, stateDirFor());
    expect([value(uncommitted, 'a'), value(uncommitted, 'c')]).toEqual([999n, 999n]);
    await uncommitted.close({ dirty: true });
  });
});
