// The commit and rollback paths of each processing guarantee, with fake tasks, producers and
// consumer: what is sent, committed and rolled back, in which order, and what a failure leads to.
import { describe, expect, it } from 'vitest';
import { AtLeastOnce } from '../../src/runtime/at-least-once.ts';
import { ExactlyOnce } from '../../src/runtime/exactly-once.ts';
import { ExactlyOnceV2 } from '../../src/runtime/exactly-once-v2.ts';
import { ThreadTransaction } from '../../src/runtime/thread-transaction.ts';
import { FakeTaskProducer, FakeThreadProducer } from './fakes/fake-producers.ts';
import { FakeTask } from './fakes/fake-task.ts';
import { guaranteeDeps } from './fakes/guarantee-deps.ts';

const input = (partition: number) => [{ topic: 'in', partition }];
const consumedAt = (task: FakeTask, offset: number) => {
  task.consumed = task.inputPartitions.map((p) => ({ ...p, offset }));
};
const ok = { fenced: false, producerBroken: false, groupMoved: false };

describe('AtLeastOnce', () => {
  function setup() {
    const deps = guaranteeDeps();
    const calls: string[] = [];
    const commitOffsets = deps.consumer.commitOffsets.bind(deps.consumer);
    deps.consumer.commitOffsets = async (offsets) => {
      calls.push('consumer.commitOffsets');
      await commitOffsets(offsets);
    };
    const producer = new FakeTaskProducer(false);
    const tasks = [new FakeTask('0_0', input(0), calls), new FakeTask('0_1', input(1), calls)];
    return { deps, calls, producer, tasks, alo: new AtLeastOnce(deps, producer) };
  }

  it('commits the input offsets after every task sent its output, then moves the tasks on', async () => {
    const { deps, calls, tasks, alo } = setup();
    consumedAt(tasks[0]!, 7);
    consumedAt(tasks[1]!, 3);
    deps.failingSince.set('0_0', 1);
    await alo.commit(tasks);
    expect(calls).toEqual([
      '0_0.sendForCommit',
      '0_1.sendForCommit',
      'consumer.commitOffsets',
      '0_0.postCommit',
      '0_1.postCommit',
    ]);
    expect(deps.consumer.commits).toEqual([
      [
        { topic: 'in', partition: 0, offset: 7 },
        { topic: 'in', partition: 1, offset: 3 },
      ],
    ]);
    expect(tasks[0]!.committed).toEqual([{ topic: 'in', partition: 0, offset: 7 }]);
    expect(deps.metrics.commits).toBe(2);
    expect(deps.failingSince.has('0_0')).toBe(false);
  });

  it("leaves out a task whose send failed, and hands it to the task manager's error path", async () => {
    const { deps, tasks, alo } = setup();
    consumedAt(tasks[0]!, 7);
    consumedAt(tasks[1]!, 3);
    tasks[0]!.failing.add('sendForCommit');
    await alo.commit(tasks);
    expect(deps.commitErrors.map((e) => e.taskId)).toEqual(['0_0']);
    expect(deps.consumer.commits).toEqual([[{ topic: 'in', partition: 1, offset: 3 }]]);
    expect(tasks[0]!.committed[0]!.offset).toBe(0);
  });

  it('keeps the offsets due when their commit fails, while the stores follow the acknowledged changelog', async () => {
    const { deps, tasks, alo } = setup();
    consumedAt(tasks[0]!, 7);
    deps.consumer.commitError = new Error('rebalance in progress');
    deps.failingSince.set('0_0', 1);
    await alo.commit([tasks[0]!]);
    expect(tasks[0]!.lastPostCommit?.offsetsCommitted).toBe(false);
    expect(tasks[0]!.commitNeeded).toBe(true);
    expect(deps.metrics.commits).toBe(0);
    expect(deps.failingSince.has('0_0')).toBe(true);
  });

  it('replaces the shared producer after a broken send and seeks the task back to its commit', async () => {
    const { deps, producer, tasks, alo } = setup();
    tasks[0]!.committed = [{ topic: 'in', partition: 0, offset: 5 }];
    await alo.rollBack(tasks[0]!, { ...ok, producerBroken: true });
    expect(producer.calls).toEqual(['reset']);
    expect(tasks[0]!.calls).toContain('0_0.rollback');
    expect(tasks[1]!.calls).not.toContain('0_1.rollback');
    expect(deps.consumer.seeks).toEqual([{ topic: 'in', partition: 0, offset: 5 }]);
    expect(deps.metrics.rollbacks).toBe(1);
    expect(deps.recreated).toEqual([]);
  });

  it('recreates a fenced task after a pause instead of seeking', async () => {
    const { deps, tasks, alo } = setup();
    await alo.rollBack(tasks[0]!, { ...ok, fenced: true });
    expect(deps.recreated).toEqual([{ taskId: '0_0', delayMs: 2_000 }]);
    expect(deps.metrics.fencedTasks).toBe(1);
    expect(deps.consumer.seeks).toEqual([]);
  });
});

describe('ExactlyOnce', () => {
  function setup() {
    const deps = guaranteeDeps('app');
    const made: Array<{ id: string; producer: FakeTaskProducer }> = [];
    const eos = new ExactlyOnce(deps, (id) => {
      const producer = new FakeTaskProducer(true);
      made.push({ id, producer });
      return producer;
    });
    return { deps, made, eos };
  }

  it("gives each task a producer of its own, fenced by the transactional id '<applicationId>-<taskId>'", () => {
    const { made, eos } = setup();
    eos.producerFor('1_2');
    expect(made.map((m) => m.id)).toEqual(['app-1_2']);
    expect(eos.transactionalIdFor('1_2')).toBe('app-1_2');
  });

  it('commits each due task in its own transaction; a failed one goes to the error path alone', async () => {
    const { deps, eos } = setup();
    const a = new FakeTask('0_0', input(0));
    const b = new FakeTask('0_1', input(1));
    consumedAt(a, 4);
    consumedAt(b, 9);
    b.failing.add('commitTransaction');
    await eos.commit([a, b]);
    expect(a.calls).toEqual(['0_0.commitTransaction', '0_0.postCommit']);
    expect(a.committed[0]!.offset).toBe(4);
    expect(deps.commitErrors.map((e) => e.taskId)).toEqual(['0_1']);
    expect(b.committed[0]!.offset).toBe(0);
    expect(deps.metrics.commits).toBe(1);
    expect(deps.recorder.transactionCommit.total).toBe(1);
  });

  it('aborts and rebuilds the task with a new producer when the producer broke', async () => {
    const { deps, eos } = setup();
    const a = new FakeTask('0_0', input(0));
    await eos.rollBack(a, { ...ok, producerBroken: true });
    expect(a.calls).toEqual(['0_0.rollback']);
    expect(deps.recorder.transactionAbortsTotal).toBe(1);
    expect(deps.recreated).toEqual([{ taskId: '0_0', delayMs: 0 }]);
  });

  it('rolls a failed processor back in place: the task goes back to its last commit', async () => {
    const { deps, eos } = setup();
    const a = new FakeTask('0_0', input(0));
    a.committed = [{ topic: 'in', partition: 0, offset: 12 }];
    await eos.rollBack(a, ok);
    expect(deps.recreated).toEqual([]);
    expect(deps.consumer.seeks).toEqual([{ topic: 'in', partition: 0, offset: 12 }]);
  });

  it('recreates the task when its abort fails (its producer is dead)', async () => {
    const { deps, eos } = setup();
    const a = new FakeTask('0_0', input(0));
    a.failing.add('rollback');
    await eos.rollBack(a, ok);
    expect(deps.recreated).toEqual([{ taskId: '0_0', delayMs: 0 }]);
  });
});

describe('ExactlyOnceV2', () => {
  function setup() {
    const deps = guaranteeDeps('app');
    let producer!: FakeThreadProducer;
    const tx = new ThreadTransaction({ ...deps, seek: (tp) => deps.consumer.seek(tp) }, (generation) => {
      producer = new FakeThreadProducer(generation);
      return producer;
    });
    const a = new FakeTask('0_0', input(0));
    const b = new FakeTask('0_1', input(1));
    return { deps, producer, a, b, v2: new ExactlyOnceV2(deps, tx) };
  }

  it('a failed commit rolls back through the first task, standing for the whole transaction', async () => {
    const { deps, producer, a, b, v2 } = setup();
    consumedAt(a, 1);
    producer.failing.add('commit');
    await v2.commit([a, b]);
    expect(deps.commitErrors.map((e) => e.taskId)).toEqual(['0_0']);
    expect(a.calls).not.toContain('0_0.postCommit');
  });

  it("rolls back every running task on one task's failure, and keeps the producer when only the group moved", async () => {
    const { deps, producer, a, b, v2 } = setup();
    await v2.rollBack(a, { fenced: true, producerBroken: true, groupMoved: true }, [a, b]);
    expect(producer.calls).toEqual(['abort']);
    expect(a.calls).toContain('0_0.rollback');
    expect(b.calls).toContain('0_1.rollback');
    expect(deps.metrics.rollbacks).toBe(2);
    expect(v2.fencingRecreatesTask).toBe(false);
  });

  it('replaces the producer when a send broke it', async () => {
    const { producer, a, b, v2 } = setup();
    await v2.rollBack(a, { ...ok, producerBroken: true }, [a, b]);
    expect(producer.calls).toEqual(['abort', 'reset']);
  });

  it('drops the work of all tasks when the assignment revokes one, and commits none of it', async () => {
    const { producer, a, b, v2 } = setup();
    expect(await v2.revoking([a, b])).toBe(false);
    expect(producer.calls).toEqual(['abort']);
    expect([...a.calls, ...b.calls]).toEqual(['0_0.rollback', '0_1.rollback']);
  });
});
