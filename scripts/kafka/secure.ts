// The secure variant of the local broker: one SASL_SSL listener (SCRAM-SHA-512 over TLS) with
// ACLs enforced by KRaft's StandardAuthorizer. Its TLS material (a self-signed CA and the
// broker's keystore) is made with openssl into the broker's own home the first time it starts;
// its SCRAM users are written into the metadata when the data dir is formatted, so they exist
// before the broker first authenticates anyone (itself included).
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import kafkajs from 'kafkajs';

// kafkajs is CommonJS: Node's ESM loader does not see its ACL enums as named exports.
const { AclOperationTypes, AclPermissionTypes, AclResourceTypes, Kafka, logLevel, ResourcePatternTypes } =
  kafkajs;

export interface SecureOptions {
  /** SCRAM-SHA-512 users (name to password), created when the data dir is formatted. */
  users: Record<string, string>;
  /** The user the broker itself logs in as; a super user (every ACL check passes). */
  superUser: string;
  /**
   * Two more listeners beside SCRAM: SASL/PLAIN over TLS on `plainPort` (the same users and
   * passwords) and mutual TLS on `mtlsPort` (a client certificate signed by the broker's CA; its
   * CN is the user, so `CN=app` is `User:app` for the ACLs).
   */
  extraListeners?: { plainPort: number; mtlsPort: number };
}

export interface TlsFiles {
  /** The self-signed CA's certificate (PEM): what clients trust (`ssl: { ca: [...] }`). */
  ca: string;
  keystore: string;
  keystorePassword: string;
}

/** Names and passwords go into StorageTool's `[name=...,password=...]` syntax and a JAAS line. */
const SAFE = /^[A-Za-z0-9_.-]+$/;

export class SecureBrokerError extends Error {
  override name = 'SecureBrokerError';
}

export function checkSecureOptions(secure: SecureOptions): void {
  if (!(secure.superUser in secure.users))
    throw new SecureBrokerError(`the super user '${secure.superUser}' must be one of the SCRAM users`);
  for (const [name, password] of Object.entries(secure.users)) {
    if (!SAFE.test(name) || !SAFE.test(password))
      throw new SecureBrokerError(
        `SCRAM user '${name}': names and passwords may use only letters, digits, '_', '.' and '-'`,
      );
  }
}

/**
 * The users of `pnpm kafka start --secure`: an `admin` super user and an `app` user, with random
 * passwords made once per broker home and kept (mode 0600) in `users.json` there.
 */
export function defaultSecureOptions(home: string): SecureOptions {
  const file = join(home, 'users.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as SecureOptions;
  const secure: SecureOptions = {
    superUser: 'admin',
    users: { admin: randomBytes(12).toString('hex'), app: randomBytes(12).toString('hex') },
  };
  mkdirSync(home, { recursive: true });
  writeFileSync(file, `${JSON.stringify(secure, null, 2)}\n`, { mode: 0o600 });
  return secure;
}

function openssl(args: string[], cwd: string): void {
  try {
    execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (err) {
    const stderr = (err as { stderr?: Buffer }).stderr?.toString().trim();
    throw new SecureBrokerError(
      `openssl ${args[0]} failed (${stderr || (err as Error).message}); is openssl installed?`,
    );
  }
}

/**
 * A CA and a broker certificate for 127.0.0.1/localhost signed by it, in a PKCS12 keystore. Made
 * once per broker home; a later start reuses them, so clients keep trusting the same CA.
 */
export function ensureTls(home: string): TlsFiles {
  const dir = join(home, 'tls');
  const files = {
    ca: join(dir, 'ca.pem'),
    keystore: join(dir, 'broker.p12'),
    password: join(dir, 'keystore-password'),
  };
  if (!existsSync(files.keystore)) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const password = randomBytes(12).toString('hex');
    openssl(
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '3650',
        '-subj',
        '/CN=kstreams local CA',
      ].concat(['-keyout', 'ca.key', '-out', 'ca.pem']),
      dir,
    );
    openssl(
      [
        'req',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-subj',
        '/CN=localhost',
        '-keyout',
        'broker.key',
        '-out',
        'broker.csr',
      ],
      dir,
    );
    // Clients check the name they dialled against the certificate's subject alternative names.
    writeFileSync(join(dir, 'san.cnf'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
    openssl(
      [
        'x509',
        '-req',
        '-in',
        'broker.csr',
        '-CA',
        'ca.pem',
        '-CAkey',
        'ca.key',
        '-CAcreateserial',
        '-days',
        '3650',
      ].concat(['-extfile', 'san.cnf', '-out', 'broker.pem']),
      dir,
    );
    openssl(
      [
        'pkcs12',
        '-export',
        '-in',
        'broker.pem',
        '-inkey',
        'broker.key',
        '-certfile',
        'ca.pem',
        '-name',
        'broker',
      ].concat(['-out', 'broker.p12', '-passout', `pass:${password}`]),
      dir,
    );
    writeFileSync(files.password, password, { mode: 0o600 });
  }
  return {
    ca: files.ca,
    keystore: files.keystore,
    keystorePassword: readFileSync(files.password, 'utf8').trim(),
  };
}

/**
 * A client certificate for `user` (CN=<user>) signed by the broker's CA, made once per broker
 * home: what a client presents on the mutual-TLS listener.
 */
export function ensureClientCertificate(home: string, user: string): { cert: string; key: string } {
  if (!SAFE.test(user))
    throw new SecureBrokerError(`client certificate user '${user}': letters, digits, '_', '.', '-'`);
  const dir = join(home, 'tls');
  ensureTls(home);
  const files = { cert: join(dir, `client-${user}.pem`), key: join(dir, `client-${user}.key`) };
  if (!existsSync(files.cert)) {
    const csr = `client-${user}.csr`;
    openssl(
      ['req', '-newkey', 'rsa:2048', '-nodes', '-subj', `/CN=${user}`, '-keyout', files.key, '-out', csr],
      dir,
    );
    openssl(
      [
        'x509',
        '-req',
        '-in',
        csr,
        '-CA',
        'ca.pem',
        '-CAkey',
        'ca.key',
        '-CAcreateserial',
        '-days',
        '3650',
      ].concat(['-out', files.cert]),
      dir,
    );
  }
  return files;
}

/** The listener, TLS, SASL and authorizer settings of server.properties. */
export function secureProperties(
  listen: { host: string; port: number; controllerPort: number },
  secure: SecureOptions,
  tls: TlsFiles,
): string {
  const { host, port, controllerPort } = listen;
  const superPassword = secure.users[secure.superUser];
  const extra = secure.extraListeners;
  const extraListeners = extra
    ? `,SASL_PLAIN://${host}:${extra.plainPort},MTLS://${host}:${extra.mtlsPort}`
    : '';
  const plainUsers = Object.entries(secure.users)
    .map(([name, password]) => `user_${name}="${password}"`)
    .join(' ');
  const extraProperties = extra
    ? `listener.name.sasl_plain.sasl.enabled.mechanisms=PLAIN
listener.name.sasl_plain.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="${secure.superUser}" password="${superPassword}" ${plainUsers};
listener.name.mtls.ssl.client.auth=required
# A client certificate's CN is its user: CN=app is User:app, as the SCRAM user app.
ssl.principal.mapping.rules=RULE:^CN=([^,]+)$/$1/,DEFAULT
`
    : '';
  return `listeners=SASL_SSL://${host}:${port},CONTROLLER://${host}:${controllerPort}${extraListeners}
advertised.listeners=SASL_SSL://${host}:${port}${extraListeners}
inter.broker.listener.name=SASL_SSL
# SCRAM cannot serve the controller listener (its credentials live in the metadata the controller
# serves), so that one stays PLAINTEXT on ${host}; its principal (ANONYMOUS) must be a super user.
listener.security.protocol.map=CONTROLLER:PLAINTEXT,SASL_SSL:SASL_SSL${extra ? ',SASL_PLAIN:SASL_SSL,MTLS:SSL' : ''}
${extraProperties}sasl.enabled.mechanisms=SCRAM-SHA-512
sasl.mechanism.inter.broker.protocol=SCRAM-SHA-512
listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="${secure.superUser}" password="${superPassword}";
ssl.keystore.type=PKCS12
ssl.keystore.location=${tls.keystore}
ssl.keystore.password=${tls.keystorePassword}
ssl.key.password=${tls.keystorePassword}
ssl.truststore.type=PEM
ssl.truststore.location=${tls.ca}
authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
super.users=User:${secure.superUser};User:ANONYMOUS
allow.everyone.if.no.acl.found=false
`;
}

/** StorageTool's arguments that write the SCRAM users into the metadata at format time. */
export function scramFormatArgs(secure: SecureOptions): string[] {
  return Object.entries(secure.users).flatMap(([name, password]) => [
    '--add-scram',
    `SCRAM-SHA-512=[name=${name},password=${password}]`,
  ]);
}

/** What a kafkajs (or kstreams) client needs to reach the secure broker as `user`. */
export function secureClientConfig(tls: Pick<TlsFiles, 'ca'>, secure: SecureOptions, user: string) {
  const password = secure.users[user];
  if (password === undefined) throw new SecureBrokerError(`no SCRAM user '${user}' on this broker`);
  return {
    ssl: { ca: [readFileSync(tls.ca, 'utf8')] },
    sasl: { mechanism: 'scram-sha-512' as const, username: user, password },
  };
}

/** Allows `user` every operation on every topic, group and transactional id (idempotent). */
export async function grantEverything(
  brokers: string,
  admin: ReturnType<typeof secureClientConfig>,
  user: string,
): Promise<void> {
  const kafka = new Kafka({ ...admin, brokers: [brokers], logLevel: logLevel.NOTHING });
  const client = kafka.admin();
  await client.connect();
  try {
    await client.createAcls({
      acl: [AclResourceTypes.TOPIC, AclResourceTypes.GROUP, AclResourceTypes.TRANSACTIONAL_ID].map(
        (resourceType) => ({
          resourceType,
          resourceName: '*',
          resourcePatternType: ResourcePatternTypes.LITERAL,
          principal: `User:${user}`,
          host: '*',
          operation: AclOperationTypes.ALL,
          permissionType: AclPermissionTypes.ALLOW,
        }),
      ),
    });
  } finally {
    await client.disconnect();
  }
}
