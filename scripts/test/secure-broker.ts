// A secure broker of the calling test file's own (scripts/kafka/secure.ts: SASL/SCRAM-SHA-512
// over TLS, ACLs enforced), for the security integration tests: SCRAM users with fresh passwords,
// the broker started before the file's tests and stopped after them, and ACL grants.
import { randomBytes } from 'node:crypto';
import {
  type AclOperationTypes,
  AclPermissionTypes,
  type AclResourceTypes,
  Kafka,
  logLevel,
  type ResourcePatternTypes,
} from 'kafkajs';
import { afterAll, beforeAll } from 'vitest';
import { brokerClientConfig, brokerOptions, brokerPaths, start, stop } from '../kafka/broker.ts';
import { ensureClientCertificate, ensureTls } from '../kafka/secure.ts';

/** What one ACL rule allows: the operations on a resource, named literally or by prefix. */
export type AclRule = [AclResourceTypes, string, ResourcePatternTypes, AclOperationTypes[]];

/**
 * Registers the file's hooks for a secure broker on `port` (a port no other test file uses: its
 * home is per port) with an `admin` super user and `users`. Each password is the user's name and
 * random hex: known, so a test can search its output for it, and within the broker script's
 * `[A-Za-z0-9_.-]`.
 */
export function secureBrokerForThisFile<User extends string>(
  port: number,
  users: readonly User[],
  /** Also SASL/PLAIN over TLS on port+2 and mutual TLS on port+3 (scripts/kafka/secure.ts). */
  { extraListeners = false } = {},
) {
  const passwords = Object.fromEntries(
    ['admin', ...users].map((user) => [user, `${user}-${randomBytes(8).toString('hex')}`]),
  ) as Record<User | 'admin', string>;
  const opts = {
    ...brokerOptions({ ...process.env, KAFKA_PORT: String(port) }),
    secure: {
      superUser: 'admin',
      users: passwords,
      ...(extraListeners ? { extraListeners: { plainPort: port + 2, mtlsPort: port + 3 } } : {}),
    },
  };
  const brokers = `${opts.host}:${opts.port}`;
  let started = false;
  beforeAll(async () => {
    started = (await start(opts, () => {})).started;
  }, 120_000);
  // Stops only a broker this file started (a developer may keep one running between runs).
  afterAll(async () => {
    if (started) await stop(opts, { clean: true });
  }, 60_000);

  /** The ssl and sasl settings of a client (or a kstreams app) that logs in as `user`. */
  const clientConfig = (user: User | 'admin') => brokerClientConfig(opts, user);
  /** A client that logs in as `user`, the super user by default. */
  const kafka = (user: User | 'admin' = 'admin') =>
    new Kafka({ brokers: [brokers], logLevel: logLevel.NOTHING, ...clientConfig(user) });

  return {
    /** The bootstrap address, host:port. */
    brokers,
    /** Each SCRAM user's password, `admin` included. */
    passwords,
    clientConfig,
    kafka,
    /** The SASL/PLAIN (over TLS) and mutual-TLS addresses, with `extraListeners`. */
    plainBrokers: `${opts.host}:${port + 2}`,
    mtlsBrokers: `${opts.host}:${port + 3}`,
    /** A client certificate and key (PEM files) for `user`, signed by the broker's CA. */
    clientCertificate: (user: User) => ensureClientCertificate(brokerPaths(opts).home, user),
    /** The file of the CA certificate that clients must trust (made when the broker first starts). */
    caFile: () => ensureTls(brokerPaths(opts).home).ca,
    /** Allows `user` what `rules` name, and nothing else, as the super user. */
    async allow(user: User, rules: readonly AclRule[]): Promise<void> {
      const admin = kafka().admin();
      await admin.connect();
      try {
        await admin.createAcls({
          acl: rules.flatMap(([resourceType, resourceName, resourcePatternType, operations]) =>
            operations.map((operation) => ({
              resourceType,
              resourceName,
              resourcePatternType,
              principal: `User:${user}`,
              host: '*',
              operation,
              permissionType: AclPermissionTypes.ALLOW,
            })),
          ),
        });
      } finally {
        await admin.disconnect();
      }
    },
  };
}
