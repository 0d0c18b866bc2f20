// The task manager's standby decisions (issue 37), with fake tasks, standbys and changelog feed:
// the assignment info's standby list opens standbys (followed from their checkpoint), a task that
// turns active here closes its standby first (checkpointing: the active's restore starts there), an
// active that moves away turns standby only after it closed (one folder lock), a standby whose task
// still restores here waits for it, unlisted standbys close clean, and closeAll closes them all.
import { describe, expect, it } from 'vitest';
import { encodeAssignmentInfo } from '../../src/kafka/assignment-info.ts';
import { AtLeastOnce } from '../../src/runtime/at-least-once.ts';
import { FakeTaskProducer } from './fakes/fake-producers.ts';
import { CHANGELOG, FakeFeed, FakeStandby } from './fakes/fake-standby.ts';
import type { FakeTask } from './fakes/fake-task.ts';
import { taskManagerHarness } from './fakes/task-manager-harness.ts';

const member = (generationId: number) => ({ memberId: 'm1', generationId, groupInstanceId: null });
const info = (activeTasks: string[], standbyTasks: string[]) =>
  encodeAssignmentInfo({ activeTasks, standbyTasks });

function harness(
  options: { restore?: (tasks: FakeTask[]) => Promise<void>; checkpoints?: Record<string, number> } = {},
) {
  const feed = new FakeFeed();
  const standbys: FakeStandby[] = [];
  let calls!: string[];
  const h = taskManagerHarness((deps) => new AtLeastOnce(deps, new FakeTaskProducer(false)), {
    restore: options.restore,
    standby: {
      create: (id) => {
        const s = new FakeStandby(id, calls, options.checkpoints?.[id] ?? 0);
        standbys.push(s);
        return s;
      },
      feed,
    },
  });
  calls = h.calls;
  return { h, feed, standbys };
}

describe('TaskManager, standby tasks', () => {
  it('opens the standbys the assignment lists, followed from their checkpoint, never for its own actives', async () => {
    const { h, feed, standbys } = harness({ checkpoints: { '0_1': 420 } });
    await h.manager.onPartitionsAssigned(
      [{ topic: 'in', partitions: [0] }],
      member(1),
      info(['0_0'], ['0_1']),
    );
    await h.settled();
    expect(standbys.map((s) => s.id)).toEqual(['0_1']);
    expect(standbys[0]!.state).toBe('running');
    expect(feed.following).toEqual(new Map([[`${CHANGELOG}-1`, 420]]));
    expect(h.manager.standbys.running().map((s) => s.id)).toEqual(['0_1']);
    expect([...h.manager.tasks.keys()]).toEqual(['0_0']);
  });

  it('promotes: the standby closes clean, checkpointing, before its active is created and restored', async () => {
    const { h, feed, standbys } = harness();
    await h.manager.onPartitionsAssigned(
      [{ topic: 'in', partitions: [0] }],
      member(1),
      info(['0_0'], ['0_1']),
    );
    await h.settled();
    const standby = standbys[0]!;
    await standby.update(CHANGELOG, 1, [], 777);
    h.calls.length = 0;
    await h.manager.onPartitionsAssigned(
      [{ topic: 'in', partitions: [1] }],
      member(2),
      info(['0_0', '0_1'], []),
    );
    await h.settled();
    expect(h.calls).toEqual([
      '0_1.standby.close(clean)',
      '0_1.initialize',
      '0_1.restore',
      '0_1.initializeTopology',
    ]);
    expect(standby.checkpointed).toBe(777);
    expect(feed.following.size).toBe(0);
    expect(h.manager.standbys.running()).toEqual([]);
    expect(h.manager.tasks.get('0_1')?.state).toBe('running');
  });

  it('demotes: a revoked active closes clean first, then the standby of it opens', async () => {
    const { h, standbys } = harness();
    await h.manager.onPartitionsAssigned(
      [{ topic: 'in', partitions: [0, 1] }],
      member(1),
      info(['0_0', '0_1'], []),
    );
    await h.settled();
    h.calls.length = 0;
    await h.manager.onPartitionsRevoked([{ topic: 'in', partitions: [1] }]);
    await h.manager.onPartitionsAssigned([], member(2), info(['0_0'], ['0_1']));
    expect(h.calls).toEqual(['0_1.close(clean)', '0_1.standby.initialize']);
    expect(standbys.map((s) => `${s.id}:${s.state}`)).toEqual(['0_1:running']);
    expect([...h.manager.tasks.keys()]).toEqual(['0_0']);
  });

  it('a standby whose task still restores here as active waits until that creation has closed it', async () => {
    let release!: () => void;
    const restoring = new Promise<void>((r) => {
      release = r;
    });
    const { h, standbys } = harness({ restore: () => restoring });
    await h.manager.onPartitionsAssigned([{ topic: 'in', partitions: [1] }], member(1), info(['0_1'], []));
    // Revoked while restoring, and listed as standby at once: the active's folder is not free yet.
    await h.manager.onPartitionsRevoked([{ topic: 'in', partitions: [1] }]);
    await h.manager.onPartitionsAssigned([], member(2), info([], ['0_1']));
    expect(standbys).toEqual([]);
    release();
    await h.settled();
    expect(h.calls).toContain('0_1.close(dirty)');
    await h.manager.standbys.openMissing();
    expect(standbys.map((s) => `${s.id}:${s.state}`)).toEqual(['0_1:running']);
    const closedAt = h.calls.indexOf('0_1.close(dirty)');
    expect(h.calls.indexOf('0_1.standby.initialize')).toBeGreaterThan(closedAt);
  });

  it('actives first: feeding waits while an active restores and until it first commits, then resumes', async () => {
    let release!: () => void;
    const restoring = new Promise<void>((r) => {
      release = r;
    });
    const { h, feed } = harness({ restore: () => restoring });
    await h.manager.onPartitionsAssigned(
      [{ topic: 'in', partitions: [0] }],
      member(1),
      info(['0_0'], ['0_1']),
    );
    // The standby opens (followed from its checkpoint) but is fed nothing while 0_0 restores.
    expect(feed.following.has(`${CHANGELOG}-1`)).toBe(true);
    expect(feed.paused).toBe(true);
    await h.manager.standbys.openMissing();
    expect(feed.paused).toBe(true);
    release();
    await h.settled();
    expect(h.manager.tasks.get('0_0')?.state).toBe('running');
    // Running, not committed yet: the standby still waits.
    await h.manager.standbys.openMissing();
    expect(feed.paused).toBe(true);
    h.manager.tasks.get('0_0')!.consumed = [{ topic: 'in', partition: 0, offset: 5 }];
    await h.manager.commitAll('interval');
    await h.manager.standbys.openMissing();
    expect(feed.paused).toBe(false);
    expect(feed.pauses).toEqual([true, false]);
  });

  it('closes the standbys no longer listed clean, and all of them and the feed on closeAll', async () => {
    const { h, feed, standbys } = harness();
    await h.manager.onPartitionsAssigned([], member(1), info([], ['0_1', '0_2', '0_3']));
    await h.manager.onPartitionsAssigned([], member(2), info([], ['0_2', '0_3']));
    expect(standbys.map((s) => `${s.id}:${s.state}`)).toEqual(['0_1:closed', '0_2:running', '0_3:running']);
    expect(h.calls).toContain('0_1.standby.close(clean)');
    expect([...feed.following.keys()].sort()).toEqual([`${CHANGELOG}-2`, `${CHANGELOG}-3`]);
    await h.manager.closeAll({ dirty: true });
    expect(h.calls.filter((c) => c.endsWith('close(dirty)'))).toEqual([
      '0_2.standby.close(dirty)',
      '0_3.standby.close(dirty)',
    ]);
    expect(feed.closed).toBe(true);
    expect(h.manager.standbys.running()).toEqual([]);
  });

  it('reopens a standby whose reading failed from its checkpoint, if still listed', async () => {
    const { h, feed, standbys } = harness();
    await h.manager.onPartitionsAssigned([], member(1), info([], ['0_1']));
    await standbys[0]!.update(CHANGELOG, 1, [], 555);
    await h.manager.standbys.reopen('0_1');
    expect(standbys[0]!.state).toBe('closed');
    expect(standbys[0]!.checkpointed).toBe(555);
    expect(feed.following.size).toBe(0);
    await h.manager.standbys.openMissing();
    expect(standbys.map((s) => `${s.id}:${s.state}`)).toEqual(['0_1:closed', '0_1:running']);
    expect(feed.following.get(`${CHANGELOG}-1`)).toBe(0);
  });

  it('keeps its standbys when the member loses its partitions (they own none)', async () => {
    const { h, standbys } = harness();
    await h.manager.onPartitionsAssigned(
      [{ topic: 'in', partitions: [0] }],
      member(1),
      info(['0_0'], ['0_1']),
    );
    await h.settled();
    await h.manager.onPartitionsLost([{ topic: 'in', partitions: [0] }]);
    expect(h.calls).toContain('0_0.close(dirty)');
    expect(standbys[0]!.state).toBe('running');
  });
});
