// The lab's configurations: the client settings the seed thread talks about, and kstreams' own
// processing.guarantee. Producer settings are kafkajs', named as in the thread.
import type { ProducerConfig } from 'kafkajs';

export type ConfigId =
  | 'plain'
  | 'fireAndForget'
  | 'idempotent'
  | 'manualCommit'
  | 'transactional'
  | 'streamsAtLeastOnce'
  | 'streamsExactlyOnce';

/** producer: a process sends the workload; copier: consume, forward, commit; streams: a kstreams app. */
export type Family = 'producer' | 'copier' | 'streams';

export interface LabConfig {
  id: ConfigId;
  label: string;
  family: Family;
  settings: string;
}

export const CONFIGS: LabConfig[] = [
  {
    id: 'plain',
    label: 'plain producer',
    family: 'producer',
    settings: 'acks=1, retries=5, max.in.flight=5',
  },
  { id: 'fireAndForget', label: 'fire-and-forget', family: 'producer', settings: 'acks=0, retries=0' },
  {
    id: 'idempotent',
    label: 'idempotent producer',
    family: 'producer',
    settings: 'enable.idempotence=true (acks=all, retries, max.in.flight=5)',
  },
  {
    id: 'manualCommit',
    label: 'manual consumer commit',
    family: 'copier',
    settings: 'enable.auto.commit=false, commit after the output; idempotent producer',
  },
  {
    id: 'transactional',
    label: 'transactional, no sendOffsets',
    family: 'copier',
    settings: 'transactional.id, output in a transaction, offsets committed after it',
  },
  {
    id: 'streamsAtLeastOnce',
    label: 'kstreams at_least_once',
    family: 'streams',
    settings: "word count, processingGuarantee: 'at_least_once', statestoreCacheMaxBytes: 0",
  },
  {
    id: 'streamsExactlyOnce',
    label: 'kstreams exactly_once',
    family: 'streams',
    settings: "word count, processingGuarantee: 'exactly_once', statestoreCacheMaxBytes: 0",
  },
];

export const configById = (id: ConfigId): LabConfig => CONFIGS.find((c) => c.id === id)!;

export type ProducerConfigId = 'plain' | 'fireAndForget' | 'idempotent';

/** The producer side of a producer-family configuration. */
export function producerSettings(id: ProducerConfigId): { client: ProducerConfig; acks: number } {
  switch (id) {
    case 'plain':
      return { client: { idempotent: false, maxInFlightRequests: 5, retry: { retries: 5 } }, acks: 1 };
    case 'fireAndForget':
      return { client: { idempotent: false, retry: { retries: 0 } }, acks: 0 };
    case 'idempotent':
      return { client: { idempotent: true, maxInFlightRequests: 5 }, acks: -1 };
  }
}
