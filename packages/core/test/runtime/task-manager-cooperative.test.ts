// The task manager under cooperative rebalancing (KIP-429), with fake tasks and consumer: a
// revocation commits and closes only the tasks that move while the others keep running (under
// exactly_once_v2 every task commits, as they share the thread's transaction); lost partitions
// close dirty; an assignment adds tasks without touching the kept ones.
import { describe, expect, it } from 'vitest';
import { AtLeastOnce } from '../../src/runtime/at-least-once.ts';
import { ExactlyOnceV2 } from '../../src/runtime/exactly-once-v2.ts';
import { ThreadTransaction } from '../../src/runtime/thread-transaction.ts';
import { FakeTaskProducer, FakeThreadProducer } from './fakes/fake-producers.ts';
import { taskManagerHarness } from './fakes/task-manager-harness.ts';

const member = (generationId: number, groupInstanceId: string | null = null) => ({
  memberId: 'm1',
  generationId,
  groupInstanceId,
});
const atLeastOnce = () => taskManagerHarness((deps) => new AtLeastOnce(deps, new FakeTaskProducer(false)));

function exactlyOnceV2() {
  let producer!: FakeThreadProducer;
  const h = taskManagerHarness(
    (deps) =>
      new ExactlyOnceV2(
        deps,
        new ThreadTransaction({ ...deps, seek: (tp) => deps.consumer.seek(tp) }, (generation) => {
          producer = new FakeThreadProducer(generation);
          return producer;
        }),
      ),
  );
  return { h, producer: () => producer };
}

describe('TaskManager, cooperative rebalancing', () => {
  it('a revocation commits and closes clean only the task that moves; the kept task is neither paused nor committed', async () => {
    const h = atLeastOnce();
    await h.manager.onPartitionsAssigned([{ topic: 'in', partitions: [0, 1] }], member(1));
    await h.settled();
    const [kept, moved] = h.made;
    kept!.consumed = [{ topic: 'in', partition: 0, offset: 7 }];
    moved!.consumed = [{ topic: 'in', partition: 1, offset: 42 }];
    h.calls.length = 0;
    const seeks = h.consumer.seeks.length;
    await h.manager.onPartitionsRevoked([{ topic: 'in', partitions: [1] }]);
    expect(h.calls).toEqual(['0_1.sendForCommit', '0_1.postCommit', '0_1.close(clean)']);
    expect(h.consumer.commits).toEqual([[{ topic: 'in', partition: 1, offset: 42 }]]);
    expect([...h.manager.tasks.keys()]).toEqual(['0_0']);
    expect(kept!.state).toBe('running');
    // Not rolled back, not sought, not paused: it goes on from where it was.
    expect(kept!.consumed).toEqual([{ topic: 'in', partition: 0, offset: 7 }]);
    expect(h.consumer.seeks.length).toBe(seeks);
    expect(h.consumer.isPaused({ topic: 'in', partition: 0 })).toBe(false);
    expect(h.manager.assigned).toEqual(new Set(['0_0']));
  });

  it('an assignment adds the new tasks and leaves the running ones alone', async () => {
    const h = atLeastOnce();
    await h.manager.onPartitionsAssigned([{ topic: 'in', partitions: [0] }], member(1));
    await h.settled();
    h.calls.length = 0;
    await h.manager.onPartitionsAssigned([{ topic: 'in', partitions: [2] }], member(2));
    await h.settled();
    expect(h.made.map((t) => t.id)).toEqual(['0_0', '0_2']);
    expect(h.calls.some((c) => c.startsWith('0_0.'))).toBe(false);
    expect([...h.manager.tasks.keys()].sort()).toEqual(['0_0', '0_2']);
    expect(h.running.at(-1)).toBe(true);
  });

  it('a task revoked while it restores is closed dirty when its creation ends, never started', async () => {
    const h = atLeastOnce();
    await h.manager.onPartitionsAssigned([{ topic: 'in', partitions: [0] }], member(1));
    await h.manager.onPartitionsRevoked([{ topic: 'in', partitions: [0] }]);
    await h.settled();
    expect(h.made[0]!.state).toBe('closed');
    expect(h.calls).toContain('0_0.close(dirty)');
    expect(h.manager.tasks.size).toBe(0);
  });

  it('lost partitions close their tasks dirty, without a commit', async () => {
    const h = atLeastOnce();
    await h.manager.onPartitionsAssigned([{ topic: 'in', partitions: [0, 1] }], member(1));
    await h.settled();
    for (const t of h.made) t.consumed = [{ ...t.inputPartitions[0]!, offset: 5 }];
    h.calls.length = 0;
    await h.manager.onPartitionsLost([{ topic: 'in', partitions: [0, 1] }]);
    expect(h.calls).toEqual(['0_0.close(dirty)', '0_1.close(dirty)']);
    expect(h.consumer.commits).toEqual([]);
    // Their work since the last commit is dropped: two rollbacks, as two rollBackTask would count.
    expect(h.metrics.rollbacks).toBe(2);
    expect(h.manager.tasks.size).toBe(0);
    // Rejoined, the tasks are created anew from what Kafka holds.
    await h.manager.onPartitionsAssigned([{ topic: 'in', partitions: [0, 1] }], member(3));
    await h.settled();
    expect(h.made).toHaveLength(4);
  });

  it('under exactly_once_v2 a revocation commits every running task in one transaction, then closes the revoked', async () => {
    const { h, producer } = exactlyOnceV2();
    await h.manager.onPartitionsAssigned([{ topic: 'in', partitions: [0, 1] }], member(4, 'instance-a'));
    await h.settled();
    for (const t of h.made) t.consumed = [{ ...t.inputPartitions[0]!, offset: 9 }];
    h.calls.length = 0;
    await h.manager.onPartitionsRevoked([{ topic: 'in', partitions: [1] }]);
    expect(producer().calls).toEqual(['commit']);
    expect(producer().committed).toEqual([
      {
        groupId: 'app',
        offsets: [
          { topic: 'in', partition: 0, offset: 9 },
          { topic: 'in', partition: 1, offset: 9 },
        ],
        // KIP-447's group metadata, with KIP-345's instance id.
        generation: { memberId: 'm1', generationId: 4, groupInstanceId: 'instance-a' },
      },
    ]);
    expect(h.calls).toEqual([
      '0_0.sendForCommit',
      '0_1.sendForCommit',
      '0_0.postCommit',
      '0_1.postCommit',
      '0_1.close(clean)',
    ]);
    expect(h.made[0]!.state).toBe('running');
    expect(h.calls).not.toContain('0_0.rollback');
  });

  it('under exactly_once_v2 lost partitions abort the transaction: the kept tasks go back to their commit, the lost close dirty', async () => {
    const { h, producer } = exactlyOnceV2();
    await h.manager.onPartitionsAssigned([{ topic: 'in', partitions: [0, 1] }], member(4));
    await h.settled();
    for (const t of h.made) t.consumed = [{ ...t.inputPartitions[0]!, offset: 9 }];
    h.calls.length = 0;
    await h.manager.onPartitionsLost([{ topic: 'in', partitions: [1] }]);
    expect(producer().calls).toEqual(['abort']);
    expect(producer().committed).toEqual([]);
    expect(h.calls).toEqual(['0_0.rollback', '0_1.rollback', '0_1.close(dirty)']);
    expect(h.made[0]!.state).toBe('running');
    // The abort rolled both back (counted there); the lost task's dirty close drops nothing more.
    expect(h.metrics.rollbacks).toBe(2);
  });

  it('a lost task without work since its last commit closes dirty without counting a rollback', async () => {
    const h = atLeastOnce();
    await h.manager.onPartitionsAssigned([{ topic: 'in', partitions: [0, 1] }], member(1));
    await h.settled();
    h.made[1]!.consumed = [{ topic: 'in', partition: 1, offset: 3 }];
    await h.manager.onPartitionsLost([{ topic: 'in', partitions: [0, 1] }]);
    expect(h.made.map((t) => t.state)).toEqual(['closed', 'closed']);
    expect(h.metrics.rollbacks).toBe(1);
  });
});
