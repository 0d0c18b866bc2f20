// What a command asks of Kafka (its brokers, security and the ACLs it needs), and the client
// settings that go with it: kafkajs' logs are not shown, but the authorization refusals they
// report are noted, since kafkajs drops them from a refused coordinator lookup's error.
import { type AclResourceType, AuthorizationRefusals } from '@kstreams/core';
import { type KafkaConfig, logLevel } from 'kafkajs';
import type { ClientSecurity } from './client-security.ts';

/** An ACL a command needs: kafka-acls' resource, name, pattern and operations. */
export interface AclNeed {
  resourceType: AclResourceType;
  name: string;
  pattern: 'literal' | 'prefixed';
  operations: string[];
}

export interface KafkaCall {
  command: string;
  brokers: string[];
  security: ClientSecurity;
  needs: AclNeed[];
  refusals: AuthorizationRefusals;
}

export function kafkaCall(c: Omit<KafkaCall, 'refusals'>): KafkaCall {
  return { ...c, refusals: new AuthorizationRefusals() };
}

/** ssl, sasl and a log creator that only notes refusals: for every client the command makes. */
export function clientConfig(call: KafkaCall): Partial<KafkaConfig> {
  return {
    ...call.security.kafkaConfig,
    logLevel: logLevel.WARN,
    logCreator:
      () =>
      ({ log }) => {
        const error = (log as { error?: unknown }).error;
        if (typeof error === 'string') call.refusals.note(error);
      },
  };
}
