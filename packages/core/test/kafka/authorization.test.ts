// The broker's ACL refusals as AuthorizationErrors: which user, which operation on which
// resource, the ACL that fixes it, never the password; and kafkajs' cause-less "coordinator not
// found" explained by the refusal it logged just before.
import {
  KafkaJSAggregateError,
  KafkaJSConnectionError,
  KafkaJSGroupCoordinatorNotFound,
  KafkaJSNonRetriableError,
  KafkaJSNumberOfRetriesExceeded,
  KafkaJSProtocolError,
  KafkaJSSASLAuthenticationError,
} from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { resolveStreamsConfig } from '../../src/config/streams-config.ts';
import { AuthenticationError, AuthorizationError, BrokerUnreachableError } from '../../src/errors.ts';
import { authorizationCode, principalOf, toAuthorizationError } from '../../src/kafka/authorization.ts';
import { isFencedError, isRefusedRecordsError } from '../../src/kafka/error-kinds.ts';
import { AuthorizationRefusals } from '../../src/kafka/refusals.ts';

const SECRET = 'pa55-Known-Secret-77';
const config = resolveStreamsConfig({
  applicationId: 'orders-app',
  brokers: 'kafka-1:9094',
  logger: 'silent',
  sasl: { mechanism: 'scram-sha-512', username: 'orders', password: SECRET },
  ssl: true,
});
const protocol = (type: string) =>
  new KafkaJSProtocolError(
    Object.assign(new Error(`broker says ${type}`), { type, code: 0, retriable: false }),
  );
const wrapped = (cause: Error) => Object.assign(new KafkaJSNonRetriableError(cause), { cause });

describe('authorization errors', () => {
  it('a transactional id refused: names the user, Write, the task id, and the prefixed ACL', () => {
    const e = toAuthorizationError(wrapped(protocol('TRANSACTIONAL_ID_AUTHORIZATION_FAILED')), config, {
      transactionalId: 'orders-app-1_3',
    });
    expect(e).toBeInstanceOf(AuthorizationError);
    expect(e).toMatchObject({
      principal: 'User:orders',
      operation: 'Write',
      resourceType: 'TransactionalId',
      resourceName: 'orders-app-1_3',
      code: 'TRANSACTIONAL_ID_AUTHORIZATION_FAILED',
    });
    expect(e!.message).toContain("User:orders is not authorized to Write TransactionalId 'orders-app-1_3'");
    expect(e!.message).toContain(
      '--allow-principal User:orders --operation Write --operation Describe --transactional-id orders-app- --resource-pattern-type prefixed',
    );
    expect(e!.message).toContain('--bootstrap-server kafka-1:9094');
    expect(e!.message).not.toContain(SECRET);
    expect(`${e!.stack}`).not.toContain(SECRET);
  });

  it('a transactional id refused with a transaction per thread: the thread id, the same prefixed ACL', () => {
    const v2 = resolveStreamsConfig({
      applicationId: 'orders-app',
      brokers: 'kafka-1:9094',
      logger: 'silent',
      processingGuarantee: 'exactly_once_v2',
    });
    const e = toAuthorizationError(wrapped(protocol('TRANSACTIONAL_ID_AUTHORIZATION_FAILED')), v2);
    expect(e).toMatchObject({ resourceType: 'TransactionalId', resourceName: 'orders-app-<processId>-1' });
    expect(e!.message).toContain(
      "a transaction per stream thread gives each thread the transactional id 'orders-app-<processId>-<thread>'",
    );
    expect(e!.message).toContain('--transactional-id orders-app- --resource-pattern-type prefixed');
  });

  it('a group refused: the application id as the group, Read', () => {
    const e = toAuthorizationError(protocol('GROUP_AUTHORIZATION_FAILED'), config);
    expect(e).toMatchObject({ resourceType: 'Group', resourceName: 'orders-app', operation: 'Read' });
    expect(e!.message).toContain('--group orders-app --resource-pattern-type prefixed');
  });

  it("topics refused inside kafkajs' aggregate of createTopics errors: the topics and the operation", () => {
    const aggregate = new KafkaJSAggregateError('Topic creation errors', [
      Object.assign(protocol('TOPIC_AUTHORIZATION_FAILED'), { topic: 'orders-app-counts-changelog' }),
    ]);
    expect(authorizationCode(aggregate)).toBe('TOPIC_AUTHORIZATION_FAILED');
    const e = toAuthorizationError(aggregate, config, {
      topics: ['orders-app-counts-changelog'],
      topicOperation: 'Create',
    });
    expect(e).toMatchObject({ resourceType: 'Topic', operation: 'Create' });
    expect(e!.message).toContain("not authorized to Create Topic 'orders-app-counts-changelog'");
    expect(e!.message).toContain(
      '--operation Create --operation Describe --topic orders-app-counts-changelog',
    );
  });

  it('other errors are no authorization errors; a mapped one passes through', () => {
    expect(toAuthorizationError(protocol('MESSAGE_TOO_LARGE'), config)).toBeUndefined();
    expect(toAuthorizationError(new Error('boom'), config)).toBeUndefined();
    const e = toAuthorizationError(protocol('GROUP_AUTHORIZATION_FAILED'), config)!;
    expect(toAuthorizationError(new Error('outer', { cause: e }), config)).toBe(e);
  });

  it('a refusal is neither a fencing nor refused records (it must not be retried as either)', () => {
    expect(isFencedError(protocol('TRANSACTIONAL_ID_AUTHORIZATION_FAILED'))).toBe(false);
    expect(isRefusedRecordsError(protocol('TOPIC_AUTHORIZATION_FAILED'))).toBe(false);
  });

  it('names the principal from the sasl user, or says there is none', () => {
    expect(principalOf(config)).toBe('User:orders');
    const plain = resolveStreamsConfig({ applicationId: 'a', brokers: 'b:1', logger: 'silent' });
    expect(principalOf(plain)).toBe('User:ANONYMOUS');
  });
});

describe('refusals kafkajs logged', () => {
  it('explains a coordinator not found by the refusal logged just before, not by an old one', () => {
    let now = 1_000;
    const refusals = new AuthorizationRefusals(() => now);
    const notFound: Error = Reflect.construct(KafkaJSGroupCoordinatorNotFound, [
      'Failed to find group coordinator',
    ]);
    expect(refusals.explain(notFound)).toBe(notFound);
    refusals.note('Transactional Id authorization failed');
    const explained = refusals.explain(notFound);
    expect(authorizationCode(explained)).toBe('TRANSACTIONAL_ID_AUTHORIZATION_FAILED');
    expect((explained as Error).cause).toBe(notFound);
    const afterRetries = new KafkaJSNumberOfRetriesExceeded(notFound, { retryCount: 5, retryTime: 1000 });
    expect(authorizationCode(refusals.explain(afterRetries))).toBe('TRANSACTIONAL_ID_AUTHORIZATION_FAILED');
    // Only the cause-less lookup failure is explained so.
    const other = new Error('something else');
    expect(refusals.explain(other)).toBe(other);
    now += 60_000;
    expect(refusals.explain(notFound)).toBe(notFound);
  });
});

describe('authentication errors', () => {
  const sasl = { mechanism: 'scram-sha-512', username: 'orders' };
  it('SASL credentials refused: names the user and the settings, not the password', () => {
    const e = AuthenticationError.from(
      Reflect.construct(KafkaJSSASLAuthenticationError, [
        'SASL SCRAM SHA512 authentication failed: invalid credentials',
      ]),
      ['kafka-1:9094'],
      sasl,
    );
    expect(e?.message).toContain("The brokers at kafka-1:9094 refused user 'orders' (SASL scram-sha-512)");
    expect(e?.message).toContain('"sasl.password"');
  });

  it("an untrusted broker certificate, after kafkajs' retries: points at ssl.ca, not at an unreachable broker", () => {
    const tls = new KafkaJSConnectionError('Connection error: self-signed certificate in certificate chain', {
      broker: 'kafka-1:9094',
      code: 'SELF_SIGNED_CERT_IN_CHAIN',
    } as never);
    const retried = new KafkaJSNumberOfRetriesExceeded(tls, { retryCount: 5, retryTime: 1000 });
    const e = AuthenticationError.from(retried, ['kafka-1:9094'], sasl);
    expect(e?.message).toContain('TLS with the brokers at kafka-1:9094 failed: SELF_SIGNED_CERT_IN_CHAIN');
    expect(e?.message).toContain('Set "ssl.ca"');
    // A broker that is simply away stays a BrokerUnreachableError.
    const refused = new KafkaJSConnectionError('Connection error: connect ECONNREFUSED', {
      broker: 'kafka-1:9094',
      code: 'ECONNREFUSED',
    } as never);
    expect(AuthenticationError.from(refused, ['kafka-1:9094'], sasl)).toBeUndefined();
    expect(BrokerUnreachableError.from(refused, ['kafka-1:9094'])).toBeInstanceOf(BrokerUnreachableError);
  });

  it('a broker that wants a client certificate (mutual TLS): points at ssl.cert and ssl.key', () => {
    const required = new KafkaJSConnectionError(
      'Connection error: error:0A00045C:SSL routines::tlsv13 alert certificate required',
      { broker: 'kafka-1:9095', code: 'ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED' } as never,
    );
    const retried = new KafkaJSNumberOfRetriesExceeded(required, { retryCount: 5, retryTime: 1000 });
    const e = AuthenticationError.from(retried, ['kafka-1:9095'], undefined);
    expect(e?.message).toContain('The brokers at kafka-1:9095 require a client certificate (mutual TLS)');
    expect(e?.message).toContain('Set "ssl.cert" and "ssl.key"');
    // The alert's wording alone (a code kafkajs did not keep) is enough.
    const bad = new KafkaJSConnectionError('Connection error: sslv3 alert bad certificate', {
      broker: 'kafka-1:9095',
    } as never);
    expect(AuthenticationError.from(bad, ['kafka-1:9095'], undefined)?.message).toContain('Set "ssl.cert"');
    // The CLI names its own flags.
    const cli = AuthenticationError.from(required, ['kafka-1:9095'], undefined, {
      credentials: '--sasl-username',
      ca: '--ssl-ca',
      cert: '--ssl-cert and --ssl-key',
    });
    expect(cli?.message).toContain('Set --ssl-cert and --ssl-key');
  });
});
