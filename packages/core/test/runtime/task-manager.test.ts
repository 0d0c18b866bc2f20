// The task manager's decisions with fake tasks and consumer: an assignment creates, restores and
// starts tasks; a revocation commits and closes them (or, under exactly_once_v2, drops every
// task's work); a failed task is rolled back and, failing again and again, stops the thread.
import { describe, expect, it } from 'vitest';
import { AtLeastOnce } from '../../src/runtime/at-least-once.ts';
import { ExactlyOnceV2 } from '../../src/runtime/exactly-once-v2.ts';
import { ThreadTransaction } from '../../src/runtime/thread-transaction.ts';
import { FakeTaskProducer, FakeThreadProducer } from './fakes/fake-producers.ts';
import { taskManagerHarness } from './fakes/task-manager-harness.ts';

const atLeastOnce = () => taskManagerHarness((deps) => new AtLeastOnce(deps, new FakeTaskProducer(false)));

describe('TaskManager', () => {
  it('creates, restores and starts the assigned tasks, then resumes their partitions at their commits', async () => {
    const h = atLeastOnce();
    await h.manager.onAssignment('m1', { in: [0, 1] }, 1);
    expect(h.made.map((t) => t.id)).toEqual(['0_0', '0_1']);
    // Paused until running: their position must not move while they restore.
    expect(h.consumer.isPaused({ topic: 'in', partition: 0 })).toBe(true);
    await h.settled();
    expect([...h.manager.tasks.keys()].sort()).toEqual(['0_0', '0_1']);
    expect(h.made.every((t) => t.state === 'running')).toBe(true);
    expect(h.calls.indexOf('0_0.restore')).toBeGreaterThan(h.calls.indexOf('0_0.initialize'));
    expect(h.calls.indexOf('0_0.initializeTopology')).toBeGreaterThan(h.calls.indexOf('0_0.restore'));
    expect(h.consumer.pausedPartitions.size).toBe(0);
    expect(h.consumer.seeks).toEqual([
      { topic: 'in', partition: 0, offset: 0 },
      { topic: 'in', partition: 1, offset: 0 },
    ]);
    expect(h.running.at(-1)).toBe(true);
  });

  it('runs a stateless task at once while a stateful task of the same assignment still restores', async () => {
    let finishRestore = () => {};
    const restoring = new Promise<void>((resolve) => {
      finishRestore = resolve;
    });
    const h = taskManagerHarness((deps) => new AtLeastOnce(deps, new FakeTaskProducer(false)), {
      isStateless: (task) => task.id === '0_1',
      restore: (tasks) => (tasks.length > 0 ? restoring : Promise.resolve()),
    });
    await h.manager.onAssignment('m1', { in: [0, 1] }, 1);
    for (let i = 0; i < 100 && !h.manager.tasks.has('0_1'); i++) await new Promise((r) => setTimeout(r, 5));
    expect([...h.manager.tasks.keys()]).toEqual(['0_1']);
    expect(h.consumer.isPaused({ topic: 'in', partition: 1 })).toBe(false);
    expect(h.consumer.isPaused({ topic: 'in', partition: 0 })).toBe(true);
    expect(h.calls).toContain('0_0.restore');
    expect(h.calls).not.toContain('0_1.restore');
    finishRestore();
    await h.settled();
    expect([...h.manager.tasks.keys()].sort()).toEqual(['0_0', '0_1']);
    expect(h.consumer.pausedPartitions.size).toBe(0);
  });

  it('commits a revoked task, then closes it clean; the kept task goes on', async () => {
    const h = atLeastOnce();
    await h.manager.onAssignment('m1', { in: [0, 1] }, 1);
    await h.settled();
    const [kept, moved] = h.made;
    moved!.consumed = [{ topic: 'in', partition: 1, offset: 42 }];
    h.calls.length = 0;
    await h.manager.onAssignment('m1', { in: [0] }, 2);
    expect(h.calls).toEqual(['0_1.sendForCommit', '0_1.postCommit', '0_1.close(clean)']);
    expect(h.consumer.commits).toEqual([[{ topic: 'in', partition: 1, offset: 42 }]]);
    expect([...h.manager.tasks.keys()]).toEqual(['0_0']);
    expect(kept!.state).toBe('running');
  });

  it('closes every task without committing when the member was dropped from the group, and creates them anew', async () => {
    const h = atLeastOnce();
    await h.manager.onAssignment('m1', { in: [0] }, 1);
    await h.settled();
    h.made[0]!.consumed = [{ topic: 'in', partition: 0, offset: 5 }];
    await h.manager.onAssignment('m2', { in: [0] }, 3);
    expect(h.calls).toContain('0_0.close(dirty)');
    expect(h.consumer.commits).toEqual([]);
    // Its work since the last commit is dropped: counted as a rollback.
    expect(h.metrics.rollbacks).toBe(1);
    await h.settled();
    expect(h.made).toHaveLength(2);
    expect(h.manager.tasks.get('0_0')).toBe(h.made[1]);
  });

  it('under exactly_once_v2 a revocation rolls back every task and commits none', async () => {
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
    await h.manager.onAssignment('m1', { in: [0, 1] }, 4);
    await h.settled();
    for (const t of h.made) t.consumed = [{ ...t.inputPartitions[0]!, offset: 9 }];
    h.calls.length = 0;
    await h.manager.onAssignment('m1', { in: [0] }, 5);
    expect(producer.calls).toEqual(['abort']);
    expect(h.calls).toEqual(['0_0.rollback', '0_1.rollback', '0_1.close(clean)']);
    expect(producer.committed).toEqual([]);
    // The next commit is made in the new generation.
    h.made[0]!.consumed = [{ topic: 'in', partition: 0, offset: 11 }];
    await h.manager.commitAll('test');
    expect(producer.committed[0]!.generation).toEqual({
      memberId: 'm1',
      generationId: 5,
      groupInstanceId: null,
    });
  });

  it('commits only the tasks that have something to commit', async () => {
    const h = atLeastOnce();
    await h.manager.onAssignment('m1', { in: [0, 1] }, 1);
    await h.settled();
    h.made[1]!.consumed = [{ topic: 'in', partition: 1, offset: 3 }];
    h.calls.length = 0;
    await h.manager.commitAll('interval');
    expect(h.calls).toEqual(['0_1.sendForCommit', '0_1.postCommit']);
  });

  it('rolls a failing task back each time, and stops the thread once it failed more than 5 times in a row', async () => {
    const h = atLeastOnce();
    await h.manager.onAssignment('m1', { in: [0] }, 1);
    await h.settled();
    const task = h.made[0]!;
    for (let i = 0; i < 5; i++) await h.manager.onTaskError(task, new Error('boom'), 'processing');
    expect(h.fatal).toEqual([]);
    expect(h.calls.filter((c) => c === '0_0.rollback')).toHaveLength(5);
    await h.manager.onTaskError(task, new Error('boom'), 'processing');
    expect(String(h.fatal[0])).toContain('task 0_0 failed 6 times in a row');
  });
  it("waits for the tasks' async work before a commit; a task whose async work failed is rolled back, not committed", async () => {
    const h = atLeastOnce();
    await h.manager.onAssignment('m1', { in: [0, 1] }, 1);
    await h.settled();
    const [ok, failed] = h.made;
    ok!.consumed = [{ topic: 'in', partition: 0, offset: 7 }];
    failed!.consumed = [{ topic: 'in', partition: 1, offset: 3 }];
    failed!.failing.add('awaitInFlight');
    h.calls.length = 0;
    await h.manager.commitAll('interval');
    expect(h.calls).toEqual(['0_1.awaitInFlight', '0_1.rollback', '0_0.sendForCommit', '0_0.postCommit']);
    expect(h.consumer.commits).toEqual([[{ topic: 'in', partition: 0, offset: 7 }]]);
  });
});
