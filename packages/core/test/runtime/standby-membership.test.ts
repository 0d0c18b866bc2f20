// The member's side of standbys without a broker: the subscription it sends (subscription info v2
// with its process id, running actives at -2 and standby positions, the SHUTDOWN_APPLICATION flag
// when asked) and the probing rebalance its assignment info schedules.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { resolveStreamsConfig } from '../../src/config/streams-config.ts';
import { encodeAssignmentInfo } from '../../src/kafka/assignment-info.ts';
import { decodeUserData } from '../../src/kafka/assignor.ts';
import { decodeSubscriptionInfo, LATEST_OFFSET } from '../../src/kafka/subscription-info.ts';
import { StandbyMembership } from '../../src/runtime/standby-membership.ts';
import { silentLogger } from './fakes/guarantee-deps.ts';
import { countingTopology } from './fixtures/counting-topology.ts';

function membership(rejoin: (reason: string) => unknown = () => {}) {
  const config = resolveStreamsConfig({
    applicationId: 'app',
    brokers: '127.0.0.1:1',
    numStandbyReplicas: 1,
    // Empty: no task folders on disk.
    stateDir: mkdtempSync(join(tmpdir(), 'kstreams-standby-membership-')),
  });
  return new StandbyMembership({
    config,
    topology: countingTopology('in', 'out'),
    admin: { endOffsets: async () => [] },
    logger: silentLogger(),
    runningActives: () => ['0_0'],
    standbys: () => [{ id: '0_1', offsetSum: () => 420 }],
    rejoin,
  });
}

describe('StandbyMembership', () => {
  it('subscribes with its process id, its running actives at -2 and its standbys at their position', async () => {
    const m = membership();
    await m.refresh();
    const { userData, assignor } = m.parts();
    expect(assignor.name).toBe('stream');
    const info = decodeSubscriptionInfo(userData({ shutdownRequested: false }));
    expect(info).toMatchObject({ version: 2, processId: m.processId, ownedTasks: ['0_0'] });
    expect(info.taskOffsetSums).toEqual(
      new Map([
        ['0_0', LATEST_OFFSET],
        ['0_1', 420],
      ]),
    );
    expect(decodeUserData(userData({ shutdownRequested: true })).shutdownRequested).toBe(true);
  });

  it('rejoins at the time its assignment info gives, and not after a newer assignment without one', () => {
    vi.useFakeTimers();
    try {
      const reasons: string[] = [];
      const m = membership((r) => reasons.push(r));
      m.onAssignment(
        encodeAssignmentInfo({
          activeTasks: [],
          standbyTasks: ['0_1'],
          nextRebalanceMs: Date.now() + 60_000,
        }),
      );
      vi.advanceTimersByTime(59_000);
      expect(reasons).toEqual([]);
      vi.advanceTimersByTime(1_000);
      expect(reasons).toEqual(['probing rebalance: warm-up replicas may have caught up']);
      m.onAssignment(
        encodeAssignmentInfo({ activeTasks: [], standbyTasks: [], nextRebalanceMs: Date.now() + 1_000 }),
      );
      m.onAssignment(encodeAssignmentInfo({ activeTasks: ['0_1'], standbyTasks: [] }));
      vi.advanceTimersByTime(5_000);
      expect(reasons).toHaveLength(1);
      m.close();
    } finally {
      vi.useRealTimers();
    }
  });
});
