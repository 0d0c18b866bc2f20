// The group membership's side of standbys (issue 37): with numStandbyReplicas > 0 the leader runs
// KIP-441's high-availability assignor (kafka/membership/high-availability-assignor.ts) and each
// member subscribes with subscription info v2 (its task offset sums: running actives, standby
// positions, checkpoints of the task folders on disk); the member chosen for the probing
// rebalance rejoins when its assignment info says (warm-ups that caught up then take their task).
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { ResolvedConfig } from '../config/streams-config.ts';
import type { StreamsAdmin } from '../kafka/admin.ts';
import { decodeAssignmentInfo } from '../kafka/assignment-info.ts';
import type { GroupConsumerParts } from '../kafka/membership/group-consumer.ts';
import {
  highAvailabilityAssignor,
  withChangelogTopics,
} from '../kafka/membership/high-availability-assignor.ts';
import { ProbingRebalance } from '../kafka/membership/probing-rebalance.ts';
import type { Topology } from '../processor/topology.ts';
import { SubscriptionUserData } from './task-offset-sums.ts';

export interface StandbyMembershipDeps {
  config: ResolvedConfig;
  topology: Topology;
  admin: Pick<StreamsAdmin, 'endOffsets'>;
  logger: Logger;
  /** The active tasks running now (-2 in the offset sums). */
  runningActives(): Iterable<string>;
  standbys(): Iterable<{ id: string; offsetSum(): number }>;
  /** Rejoins the group (the probing rebalance). */
  rejoin(reason: string): unknown;
}

export class StandbyMembership {
  /** Kafka Streams' processId: one per instance, so the leader groups its members. */
  readonly processId = randomUUID();
  private readonly userData: SubscriptionUserData;
  private readonly probe: ProbingRebalance;

  constructor(private readonly deps: StandbyMembershipDeps) {
    const { config, topology } = deps;
    this.userData = new SubscriptionUserData({
      config,
      subtopologies: topology.subtopologies(config.applicationId),
      processId: this.processId,
      applicationServer: config.applicationServer,
      runningActives: deps.runningActives,
      standbys: deps.standbys,
    });
    this.probe = new ProbingRebalance((reason) => deps.rejoin(reason));
  }

  /** The standbys' assignor and subscription for the group consumer (GroupConsumerParts). */
  parts(): NonNullable<GroupConsumerParts['subscription']> {
    const { config, topology, admin, logger } = this.deps;
    return {
      assignor: highAvailabilityAssignor({
        subtopologies: () => withChangelogTopics(topology.subtopologies(config.applicationId)),
        config: {
          numStandbyReplicas: config.numStandbyReplicas,
          acceptableRecoveryLag: config.acceptableRecoveryLag,
          maxWarmupReplicas: config.maxWarmupReplicas,
          probingRebalanceIntervalMs: config.probingRebalanceIntervalMs,
        },
        processId: this.processId,
        endOffsets: (topics) => admin.endOffsets(topics),
        onLagFailure: (error) =>
          logger.warn({ err: error }, 'changelog end offsets unreadable: assigning without lags'),
      }),
      userData: (options) => this.userData.encode(options),
    };
  }

  /** Reads the task folders on disk (their checkpoints) for the next subscription. */
  refresh(): Promise<void> {
    return this.userData.refresh().catch((error: unknown) => {
      this.deps.logger.warn({ err: error }, 'reading the task folders on disk failed');
    });
  }

  /** Each assignment: (re)schedules the probing rebalance its info asks for. */
  onAssignment(userData: Buffer | null): void {
    this.probe.onAssignment(decodeAssignmentInfo(userData));
  }

  close(): void {
    this.probe.cancel();
  }
}
