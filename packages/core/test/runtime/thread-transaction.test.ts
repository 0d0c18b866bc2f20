// exactly_once_v2's one transaction per thread, with fake tasks and a fake thread producer: what
// goes into a commit, in which group generation, and how a rollback brings every task back.
import { describe, expect, it } from 'vitest';
import { ThreadTransaction } from '../../src/runtime/thread-transaction.ts';
import { FakeThreadProducer } from './fakes/fake-producers.ts';
import { FakeTask } from './fakes/fake-task.ts';
import { guaranteeDeps } from './fakes/guarantee-deps.ts';

function setup() {
  const deps = guaranteeDeps('app');
  const calls: string[] = [];
  let producer!: FakeThreadProducer;
  const tx = new ThreadTransaction({ ...deps, seek: (tp) => deps.consumer.seek(tp) }, (generation) => {
    producer = new FakeThreadProducer(generation);
    return producer;
  });
  const a = new FakeTask('0_0', [{ topic: 'in', partition: 0 }], calls);
  const b = new FakeTask('0_1', [{ topic: 'in', partition: 1 }], calls);
  return { deps, calls, producer, tx, a, b };
}

describe('ThreadTransaction', () => {
  it("commits every task's offsets in one transaction, in the generation the thread joined, after all sends", async () => {
    const { deps, calls, producer, tx, a, b } = setup();
    tx.joined('member-1', 7);
    a.consumed = [{ topic: 'in', partition: 0, offset: 10 }];
    b.consumed = [{ topic: 'in', partition: 1, offset: 20 }];
    await tx.commit([a, b], 'app');
    expect(calls).toEqual(['0_0.sendForCommit', '0_1.sendForCommit', '0_0.postCommit', '0_1.postCommit']);
    expect(producer.committed).toEqual([
      {
        groupId: 'app',
        offsets: [
          { topic: 'in', partition: 0, offset: 10 },
          { topic: 'in', partition: 1, offset: 20 },
        ],
        generation: { memberId: 'member-1', generationId: 7, groupInstanceId: null },
      },
    ]);
    expect(a.committed[0]!.offset).toBe(10);
    expect(deps.metrics.commits).toBe(2);
  });

  it('commits the last committed offsets again when the tasks consumed nothing (punctuators only)', async () => {
    const { producer, tx, a } = setup();
    a.committed = [{ topic: 'in', partition: 0, offset: 4 }];
    await tx.commit([a], 'app');
    expect(producer.committed[0]!.offsets).toEqual([{ topic: 'in', partition: 0, offset: 4 }]);
    // Before the thread joined a generation the commit carries none.
    expect(producer.committed[0]!.generation).toBeUndefined();
  });

  it('throws a failed commit without moving any task on', async () => {
    const { producer, tx, a } = setup();
    a.consumed = [{ topic: 'in', partition: 0, offset: 10 }];
    producer.failing.add('commit');
    await expect(tx.commit([a], 'app')).rejects.toThrow('commit failed');
    expect(a.calls).not.toContain('0_0.postCommit');
    expect(a.committed[0]!.offset).toBe(0);
  });

  it('aborts, rolls every task back and seeks each to its last commit', async () => {
    const { deps, producer, tx, a, b } = setup();
    a.committed = [{ topic: 'in', partition: 0, offset: 3 }];
    b.committed = [{ topic: 'in', partition: 1, offset: 8 }];
    a.buffered = 5;
    await tx.rollBack([a, b], false);
    expect(producer.calls).toEqual(['abort']);
    expect(a.buffered).toBe(0);
    expect(deps.consumer.seeks).toEqual([
      { topic: 'in', partition: 0, offset: 3 },
      { topic: 'in', partition: 1, offset: 8 },
    ]);
    expect(deps.metrics.rollbacks).toBe(2);
    expect(deps.recorder.transactionAbortsTotal).toBe(1);
  });

  it('replaces the producer when its abort fails, even if the caller did not ask', async () => {
    const { producer, tx, a } = setup();
    producer.failing.add('abort');
    await tx.rollBack([a], false);
    expect(producer.calls).toEqual(['abort', 'reset']);
    expect(a.calls).toEqual(['0_0.rollback']);
  });
});
