// The broker's authorization failures, as an AuthorizationError that says which user lacks which
// operation on which resource, and the ACL that grants it. kafkajs reports only the error code
// (TOPIC_AUTHORIZATION_FAILED, ...); the resource comes from what the runtime was doing.
import type { ResolvedConfig } from '../config/streams-config.ts';
import { type AclResourceType, AuthorizationError } from '../errors.ts';

interface ErrorLike {
  type?: string;
  cause?: unknown;
  originalError?: unknown;
  /** kafkajs' KafkaJSAggregateError (createTopics) and KafkaJSCreateTopicError lists. */
  errors?: unknown[];
}

const CODES: Record<string, AclResourceType> = {
  TOPIC_AUTHORIZATION_FAILED: 'Topic',
  GROUP_AUTHORIZATION_FAILED: 'Group',
  TRANSACTIONAL_ID_AUTHORIZATION_FAILED: 'TransactionalId',
  CLUSTER_AUTHORIZATION_FAILED: 'Cluster',
};

/** The authorization error code anywhere in the error's causes, if any. */
export function authorizationCode(error: unknown, depth = 0): string | undefined {
  for (
    let e = error as ErrorLike | undefined;
    e && depth < 20;
    e = (e.originalError ?? e.cause) as ErrorLike
  ) {
    if (e instanceof AuthorizationError) return e.code;
    if (e.type !== undefined && e.type in CODES) return e.type;
    for (const inner of e.errors ?? []) {
      const code = authorizationCode(inner, depth + 1);
      if (code) return code;
    }
    depth++;
  }
  return undefined;
}

/** `User:<name>` as the broker's ACLs name the app's client (its SASL user), or what it is not. */
export function principalOf(config: ResolvedConfig): string {
  const sasl = config.kafkaClient.sasl as { username?: unknown } | undefined;
  if (typeof sasl?.username === 'string') return `User:${sasl.username}`;
  if (sasl !== undefined) return "the app's SASL principal";
  return config.kafkaClient.ssl ? "the app's TLS client certificate principal" : 'User:ANONYMOUS';
}

/** What the runtime was doing when the broker refused it. */
export interface AuthorizationContext {
  /** The task's transactional id (exactly_once). */
  transactionalId?: string;
  /** The topics of the refused request, and what was asked of them. */
  topics?: readonly string[];
  topicOperation?: string;
}

function grant(principal: string, operations: string[], resource: string, brokers: string): string {
  const ops = operations.map((o) => `--operation ${o}`).join(' ');
  const who = principal.startsWith('User:') ? principal : 'User:<app user>';
  return `kafka-acls.sh --bootstrap-server ${brokers} --command-config admin.properties --add --allow-principal ${who} ${ops} ${resource}`;
}

/**
 * An AuthorizationError for a kafkajs error that is an authorization failure, else undefined.
 * An AuthorizationError among its causes is returned as it is.
 */
/** The topics of a send the broker refused (set by sendInChunks), anywhere in the chain. */
function deniedTopics(error: unknown): string[] | undefined {
  type Denied = { deniedTopics?: string[]; cause?: unknown; originalError?: unknown };
  for (
    let e = error as Denied | undefined, depth = 0;
    e && depth < 20;
    e = (e.originalError ?? e.cause) as Denied, depth++
  )
    if (Array.isArray(e.deniedTopics)) return e.deniedTopics;
  return undefined;
}

export function toAuthorizationError(
  error: unknown,
  config: ResolvedConfig,
  context: AuthorizationContext = {},
): AuthorizationError | undefined {
  for (let e = error as ErrorLike | undefined, depth = 0; e && depth < 20; e = e.cause as ErrorLike, depth++)
    if (e instanceof AuthorizationError) return e;
  const code = authorizationCode(error);
  if (code === undefined) return undefined;
  const principal = principalOf(config);
  const id = config.applicationId;
  const brokers = config.brokers.join(',');
  const base = { principal, code, cause: error };
  switch (CODES[code]) {
    case 'TransactionalId':
      return new AuthorizationError({
        ...base,
        operation: 'Write',
        resourceType: 'TransactionalId',
        resourceName:
          context.transactionalId ?? (config.exactlyOnceV2 ? `${id}-<processId>-1` : `${id}-<taskId>`),
        fix:
          (config.exactlyOnceV2
            ? `a transaction per stream thread gives each thread the transactional id '${id}-<processId>-<thread>': `
            : `exactly_once gives each task the transactional id '${id}-<taskId>': `) +
          'allow Write and Describe on the ' +
          `transactional ids with the prefix '${id}-': ${grant(principal, ['Write', 'Describe'], `--transactional-id ${id}- --resource-pattern-type prefixed`, brokers)}`,
      });
    case 'Group':
      return new AuthorizationError({
        ...base,
        operation: 'Read',
        resourceType: 'Group',
        resourceName: id,
        fix:
          `the app's consumer group is its applicationId (restores and standbys read without a group): allow Read and ` +
          `Describe on the groups with the prefix '${id}': ${grant(principal, ['Read', 'Describe'], `--group ${id} --resource-pattern-type prefixed`, brokers)}`,
      });
    case 'Cluster':
      return new AuthorizationError({
        ...base,
        operation: context.topicOperation === 'Create' ? 'Create' : 'IdempotentWrite',
        resourceType: 'Cluster',
        resourceName: 'kafka-cluster',
        fix: `allow it on the cluster, or grant the topic-level ACLs the app needs: ${grant(principal, [context.topicOperation === 'Create' ? 'Create' : 'IdempotentWrite'], '--cluster', brokers)}`,
      });
    default: {
      const topics = context.topics ?? deniedTopics(error) ?? [];
      const operation = context.topicOperation ?? 'Read/Write';
      const ops = operation.split('/');
      return new AuthorizationError({
        ...base,
        operation,
        resourceType: 'Topic',
        resourceName: topics.length > 0 ? topics.join(', ') : '(one of the app topics)',
        fix:
          `allow ${ops.join(' and ')} (and Describe) on ${topics.length > 0 ? 'these topics' : "the app's input, output and internal topics"}; ` +
          `the internal topics start with '${id}-': ${grant(principal, [...ops, 'Describe'], `--topic ${topics.length === 1 ? topics[0] : `${id}-`}${topics.length === 1 ? '' : ' --resource-pattern-type prefixed'}`, brokers)}`,
      });
    }
  }
}
