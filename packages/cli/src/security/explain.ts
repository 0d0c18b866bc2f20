// A Kafka refusal met by a command, as one line that says what to change: core's
// AuthenticationError (naming the flag, variable or file line that set the credentials or CA) and
// AuthorizationError (naming the ACLs this command needs, and the kafka-acls line that grants them).
import {
  type AclResourceType,
  AuthenticationError,
  AuthorizationError,
  authorizationCode,
  BrokerUnreachableError,
} from '@kstreams/core';
import type { AclNeed, KafkaCall } from './kafka-call.ts';

const RESOURCE_OF_CODE: Record<string, AclResourceType> = {
  TOPIC_AUTHORIZATION_FAILED: 'Topic',
  GROUP_AUTHORIZATION_FAILED: 'Group',
  TRANSACTIONAL_ID_AUTHORIZATION_FAILED: 'TransactionalId',
  CLUSTER_AUTHORIZATION_FAILED: 'Cluster',
};

const FLAG: Record<AclResourceType, string> = {
  Topic: '--topic',
  Group: '--group',
  TransactionalId: '--transactional-id',
  Cluster: '--cluster',
};

/**
 * The refusal `error` stands for, explained for `call`: an AuthenticationError or
 * AuthorizationError (exit 1), or an unreachable-broker Error; undefined for any other error.
 */
export function explainKafkaError(error: unknown, call: KafkaCall): Error | undefined {
  const { security, brokers } = call;
  error = call.refusals.explain(error);
  const authn = AuthenticationError.from(
    error,
    brokers,
    security.kafkaConfig.sasl as { mechanism?: unknown; username?: unknown } | undefined,
    security.settings,
  );
  if (authn) return authn;
  const code = authorizationCode(error);
  if (code !== undefined) return authorizationError(code, call, error);
  const unreachable = BrokerUnreachableError.from(error, brokers);
  if (unreachable) {
    const reason = /\((.*)\)\. Start Kafka/.exec(unreachable.message)?.[1] ?? 'no answer';
    return new Error(
      `no Kafka broker answered at ${brokers.join(',')} (${reason}): check --brokers (or KAFKA_BROKERS), and that ` +
        `they listen for ${security.protocol} (--security-protocol, or security.protocol in --command-config)`,
      { cause: error },
    );
  }
  return undefined;
}

function authorizationError(code: string, call: KafkaCall, cause: unknown): AuthorizationError {
  const principal =
    call.security.username !== undefined ? `User:${call.security.username}` : 'User:ANONYMOUS';
  const resourceType = RESOURCE_OF_CODE[code] ?? 'Topic';
  const needs = call.needs.filter((n) => n.resourceType === resourceType);
  const operations = [...new Set(needs.flatMap((n) => n.operations))];
  const grants = needs.map(
    (n) =>
      `kafka-acls.sh --bootstrap-server ${call.brokers.join(',')} --command-config admin.properties --add ` +
      `--allow-principal ${principal} ${n.operations.map((o) => `--operation ${o}`).join(' ')} ` +
      `${FLAG[n.resourceType]} ${n.resourceType === 'Cluster' ? '' : n.name}${n.pattern === 'prefixed' ? ' --resource-pattern-type prefixed' : ''}`.trimEnd(),
  );
  const what = needs.map((n) => `${n.operations.join(', ')} on ${describeNeed(n)}`).join(' and ');
  return new AuthorizationError({
    principal,
    operation: operations.join('/') || 'use',
    resourceType,
    resourceName: needs.map((n) => (n.pattern === 'prefixed' ? `${n.name}*` : n.name)).join(', ') || '?',
    code,
    fix:
      needs.length > 0
        ? `kstreams ${call.command} needs ${what}: ${grants.join(' ; ')}`
        : `ask the cluster's admin which ${resourceType} ACL kstreams ${call.command} lacks`,
    cause,
  });
}

function describeNeed(n: AclNeed): string {
  const kind = { Topic: 'topic', Group: 'group', TransactionalId: 'transactional id', Cluster: 'cluster' }[
    n.resourceType
  ];
  return n.pattern === 'prefixed' ? `the ${kind}s starting with '${n.name}'` : `${kind} '${n.name}'`;
}
