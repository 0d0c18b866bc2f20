// Plugs the task assignment into kafkajs' consumer group protocol. The leader computes tasks from
// the topic metadata and hands each member the partitions of the tasks it got.
// First: kafkajs must find core's replacements when it loads (kafkajs-patches.ts).
import './kafkajs-patches.ts';
import { AssignerProtocol, type PartitionAssigner } from 'kafkajs';
import {
  assignTasks,
  type SubtopologyTopics,
  tasksFor,
} from '../processor/internals/assignment/sticky-task-assignor.ts';

export const ASSIGNOR_NAME = 'kstreams-sticky-task';

export interface MemberUserData {
  ownedTasks: string[];
  applicationServer?: string;
  /** The instance asks every instance to stop (SHUTDOWN_APPLICATION; membership/shutdown-request.ts). */
  shutdownRequested?: boolean;
}

export function encodeUserData(data: MemberUserData): Buffer {
  return Buffer.from(JSON.stringify(data));
}

export function decodeUserData(buf: Buffer | null | undefined): MemberUserData {
  if (!buf || buf.length === 0) return { ownedTasks: [] };
  try {
    const parsed = JSON.parse(buf.toString('utf8')) as Partial<MemberUserData>;
    return {
      ownedTasks: Array.isArray(parsed.ownedTasks) ? parsed.ownedTasks : [],
      applicationServer: parsed.applicationServer,
      ...(parsed.shutdownRequested === true ? { shutdownRequested: true } : {}),
    };
  } catch {
    return { ownedTasks: [] };
  }
}

export interface AssignorOptions {
  subtopologies: () => SubtopologyTopics[];
  /** Called synchronously by kafkajs when the member (re)joins: the tasks it runs now. */
  ownedTasks: () => string[];
  applicationServer?: string;
}

export function kstreamsAssignor(options: AssignorOptions): PartitionAssigner {
  return ({ cluster }) => ({
    name: ASSIGNOR_NAME,
    version: 1,
    async assign({ members }) {
      const partitionCount = (topic: string) => cluster.findTopicPartitionMetadata(topic).length;
      const tasks = tasksFor(options.subtopologies(), partitionCount);
      const byId = new Map(tasks.map((t) => [t.id, t]));
      const states = members.map((m) => {
        const meta = AssignerProtocol.MemberMetadata.decode(m.memberMetadata);
        return { memberId: m.memberId, ownedTasks: decodeUserData(meta?.userData).ownedTasks };
      });
      const plan = assignTasks(
        tasks.map((t) => t.id),
        states,
      );
      return [...plan.entries()].map(([memberId, taskIds]) => {
        const assignment: Record<string, number[]> = {};
        for (const id of taskIds) {
          for (const input of byId.get(id)!.inputs) {
            const list = assignment[input.topic] ?? [];
            list.push(input.partition);
            assignment[input.topic] = list;
          }
        }
        return {
          memberId,
          memberAssignment: AssignerProtocol.MemberAssignment.encode({
            version: 1,
            assignment,
            userData: Buffer.from(JSON.stringify({ tasks: taskIds })),
          }),
        };
      });
    },
    protocol({ topics }) {
      return {
        name: ASSIGNOR_NAME,
        metadata: AssignerProtocol.MemberMetadata.encode({
          version: 1,
          topics,
          userData: encodeUserData({
            ownedTasks: options.ownedTasks(),
            applicationServer: options.applicationServer,
          }),
        }),
      };
    },
  });
}
