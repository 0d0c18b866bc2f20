// KIP-447's transactional offset commit names the consumer group generation the offsets were
// processed in, so that the group coordinator can refuse a zombie's. kafkajs keeps its consumer's
// generation to itself (its GROUP_JOIN event carries the member id, not the generation); this wraps
// kafkajs' JoinGroup request so that every join's answer is remembered: member id -> generation.
// Installed in kafkajs' table of requests, which its broker reads at every call (any load order).
import { installRequestVersions } from './kafkajs-modules.ts';
import type { RequestProtocol } from './kafkajs-protocol.ts';

interface JoinGroupResult {
  generationId: number;
  memberId: string;
}

/** Members of this process's consumers, the latest joins last; bounded for long-lived processes. */
const generations = new Map<string, number>();
const MAX_MEMBERS = 1_000;

function remember(memberId: string, generationId: number): void {
  generations.delete(memberId);
  generations.set(memberId, generationId);
  if (generations.size > MAX_MEMBERS) generations.delete(generations.keys().next().value!);
}

const installed = installRequestVersions('JoinGroup', {}, (make) => (args: never) => {
  const built = make(args) as RequestProtocol<JoinGroupResult>;
  const { parse } = built.response;
  return {
    ...built,
    response: {
      ...built.response,
      parse: async (data: JoinGroupResult) => {
        const result = await parse(data);
        if (result.memberId && result.generationId >= 0) remember(result.memberId, result.generationId);
        return result;
      },
    },
  };
});

/** The generation the member last joined, if it is a consumer of this process. */
export function groupGeneration(memberId: string): number | undefined {
  return generations.get(memberId);
}

/** Whether JoinGroup answers are seen (false when core cannot reach kafkajs' files: bundled). */
export const groupGenerationTracked = () => installed;
