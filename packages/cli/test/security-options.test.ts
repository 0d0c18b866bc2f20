// The CLI's security options without a broker: the properties file, sasl.jaas.config, flags and
// environment variables, their precedence, clear errors for bad values, and no secret in any output.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { AuthenticationError, AuthorizationError } from '@kstreams/core';
import { describe, expect, it } from 'vitest';
import { runCli } from '../src/index.ts';
import { resolveClientSecurity } from '../src/security/client-security.ts';
import { explainKafkaError } from '../src/security/explain.ts';
import { parseJaas } from '../src/security/jaas.ts';
import { kafkaCall } from '../src/security/kafka-call.ts';
import { parseProperties } from '../src/security/properties.ts';

const SECRET = 's3cret-Pa55=word';
const dir = mkdtempSync(join(tmpdir(), 'kstreams-cli-security-'));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const ca = file('ca.pem', '-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n');
const jaas = (user: string, password: string) =>
  `org.apache.kafka.common.security.scram.ScramLoginModule required username="${user}" password="${password}";`;
const clientProperties = file(
  'client.properties',
  [
    '# as kafka-consumer-groups.sh --command-config reads it',
    'security.protocol=SASL_SSL',
    'sasl.mechanism=SCRAM-SHA-512',
    `sasl.jaas.config=${jaas('app', SECRET).replace(' required', ' \\\n    required')}`,
    `ssl.ca.location=${ca}`,
    'client.id=ops',
    'request.timeout.ms=30000',
  ].join('\n'),
);

/** Everything a value may be printed through. */
const shown = (v: unknown) => `${JSON.stringify(v)}\n${inspect(v, { depth: 9 })}\n${String(v)}`;

async function cli(args: string[], env: NodeJS.ProcessEnv = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(args, { out: (s) => out.push(s), err: (s) => err.push(s) }, env);
  return { code, out: out.join(''), err: err.join('') };
}

const error = (run: () => unknown): Error => {
  try {
    run();
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected an error');
};

describe('properties files', () => {
  it('reads Java properties: separators, comments, continuations and escapes', () => {
    const p = parseProperties(
      [
        '# comment',
        '! comment too',
        '  a=1',
        'b : two words ',
        'c three',
        'd=one \\',
        '   two',
        'e\\=x=\\u0041\\t\\\\',
        'empty=',
      ].join('\r\n'),
      'f',
    );
    expect(Object.fromEntries(p)).toEqual({
      a: '1',
      b: 'two words ',
      c: 'three',
      d: 'one two',
      'e=x': 'A\t\\',
      empty: '',
    });
  });

  it('names the line of a bad escape, never its value', () => {
    const e = error(() => parseProperties(`ok=1\nsasl.password=${SECRET}\\u00`, 'client.properties'));
    expect(e.message).toBe('client.properties, line 2: a \\u escape needs four hex digits');
  });
});

describe('sasl.jaas.config', () => {
  it('takes the SCRAM and PLAIN login modules and their quoted options', () => {
    const scram = parseJaas(jaas('app', 'p"w\\"x'.replace('"', '')), 'j');
    expect(scram.module).toBe('ScramLoginModule');
    expect(scram.options.get('username')).toBe('app');
    expect(scram.options.get('password')).toBe('pw"x');
    const plain = parseJaas(
      'org.apache.kafka.common.security.plain.PlainLoginModule required username=u password=p;',
      'j',
    );
    expect([plain.module, plain.options.get('password')]).toEqual(['PlainLoginModule', 'p']);
  });

  it('says what to write instead, without the password', () => {
    const kerberos = error(() => parseJaas('com.sun.security.auth.module.Krb5LoginModule required;', 'x'));
    expect(kerberos.message).toContain(
      'Krb5LoginModule is not supported; use org.apache.kafka.common.security.scram.ScramLoginModule',
    );
    const open = error(() => parseJaas(`${jaas('app', SECRET).slice(0, -2)}`, 'sasl.jaas.config in f'));
    expect(open.message).toBe('sasl.jaas.config in f: a quoted value has no closing "');
    const noSemicolon = error(() => parseJaas(jaas('app', SECRET).slice(0, -1), 'j'));
    expect(noSemicolon.message).toBe(`j: the login module's options must end with ";"`);
  });
});

describe('resolveClientSecurity', () => {
  it('a --command-config file: SASL_SSL, SCRAM, the JAAS user, a PEM CA; the password prints as [redacted]', () => {
    const s = resolveClientSecurity({ commandConfig: clientProperties }, {});
    expect(s.protocol).toBe('SASL_SSL');
    expect(s.username).toBe('app');
    const sasl = s.kafkaConfig.sasl as { mechanism: string; username: string; password: string };
    expect(sasl).toMatchObject({ mechanism: 'scram-sha-512', username: 'app', password: SECRET });
    expect(s.kafkaConfig.ssl).toMatchObject({ ca: [expect.stringContaining('BEGIN CERTIFICATE')] });
    expect(s.ignored).toEqual(['request.timeout.ms']);
    expect(shown(s)).toContain('[redacted]');
    expect(shown(s)).not.toContain(SECRET);
    expect(s.settings.credentials).toContain(`sasl.jaas.config in ${clientProperties}`);
    expect(s.settings.ca).toContain(`ssl.ca.location in ${clientProperties}`);
  });

  it('flags beat variables, which beat the file', () => {
    const flagPassword = file('password', 'from-flag-file\n');
    const s = resolveClientSecurity(
      { commandConfig: clientProperties, saslUsername: 'flag-user', saslPasswordFile: flagPassword },
      {
        KAFKA_SASL_USERNAME: 'env-user',
        KAFKA_SASL_PASSWORD: 'env-pw',
        KAFKA_SASL_MECHANISM: 'scram-sha-256',
      },
    );
    expect(s.kafkaConfig.sasl).toMatchObject({
      username: 'flag-user',
      password: 'from-flag-file',
      mechanism: 'scram-sha-256',
    });
    expect(s.settings.credentials).toBe(
      `the SASL user (--sasl-username), password (--sasl-password-file (${flagPassword})) and mechanism (KAFKA_SASL_MECHANISM)`,
    );
  });

  it('variables alone, for CI; SASL without a protocol means SASL_SSL, a CA alone SSL', () => {
    const s = resolveClientSecurity(
      {},
      {
        KAFKA_SASL_MECHANISM: 'PLAIN',
        KAFKA_SASL_USERNAME: 'ci',
        KAFKA_SASL_PASSWORD_FILE: file('ci-pw', SECRET),
        KAFKA_SSL_CA: ca,
      },
    );
    expect(s.protocol).toBe('SASL_SSL');
    expect(s.kafkaConfig.sasl).toMatchObject({ mechanism: 'plain', username: 'ci', password: SECRET });
    expect(resolveClientSecurity({ sslCa: ca }, {}).protocol).toBe('SSL');
    expect(resolveClientSecurity({ sslCa: ca }, {}).kafkaConfig.sasl).toBeUndefined();
    expect(resolveClientSecurity({}, {})).toMatchObject({ protocol: 'PLAINTEXT', kafkaConfig: {} });
    // SSL without a CA file trusts the system's CAs.
    expect(resolveClientSecurity({ securityProtocol: 'SSL' }, {}).kafkaConfig.ssl).toBe(true);
  });

  it('accepts a PEM truststore (ssl.truststore.type=PEM), refuses a JKS one saying what to do', () => {
    const pem = file(
      'pem.properties',
      `security.protocol=SSL\nssl.truststore.type=PEM\nssl.truststore.location=${ca}\n`,
    );
    expect(resolveClientSecurity({ commandConfig: pem }, {}).kafkaConfig.ssl).toMatchObject({
      ca: [expect.any(String)],
    });
    const jks = file(
      'jks.properties',
      'security.protocol=SSL\nssl.truststore.location=/x/truststore.jks\nssl.truststore.password=changeit\n',
    );
    const e = error(() => resolveClientSecurity({ commandConfig: jks }, {}));
    expect(e.message).toContain(`ssl.truststore.location in ${jks}: a JKS or PKCS12 truststore is Java's`);
    expect(e.message).toContain('ssl.ca.location=ca.pem');
    expect(e.message).toContain('keytool -exportcert -rfc');
    expect(e.message).not.toContain('changeit');
  });

  it('bad values: clear errors that name the option to change', () => {
    const messages = (flags: Parameters<typeof resolveClientSecurity>[0], env: NodeJS.ProcessEnv = {}) =>
      error(() => resolveClientSecurity(flags, env)).message;
    expect(messages({}, { KAFKA_SECURITY_PROTOCOL: 'TLS' })).toBe(
      "KAFKA_SECURITY_PROTOCOL: security protocol must be one of PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL, got 'TLS'",
    );
    expect(messages({ saslMechanism: 'GSSAPI', saslUsername: 'u' })).toContain(
      "--sasl-mechanism: SASL mechanism must be one of PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, got 'GSSAPI'",
    );
    expect(messages({ saslMechanism: 'SCRAM-SHA-512', saslUsername: 'u' })).toBe(
      "A SASL password (--sasl-password-file, KAFKA_SASL_PASSWORD or sasl.jaas.config) is required with mechanism 'scram-sha-512' (a non-empty string)",
    );
    expect(messages({ securityProtocol: 'SSL', saslUsername: 'u' })).toBe(
      'security protocol SSL (--security-protocol) does not use SASL, yet the SASL username is set (--sasl-username): use SASL_SSL',
    );
    expect(
      messages(
        { securityProtocol: 'SASL_PLAINTEXT', sslCa: ca, saslMechanism: 'PLAIN', saslUsername: 'u' },
        { KAFKA_SASL_PASSWORD: SECRET },
      ),
    ).toContain('does not use TLS, yet a CA is set (--ssl-ca): use SSL or SASL_SSL');
    expect(messages({ sslCa: join(dir, 'missing.pem') })).toBe(
      `--ssl-ca: no CA certificate file at ${join(dir, 'missing.pem')}`,
    );
    expect(messages({ sslCa: clientProperties })).toContain('is not a PEM certificate');
    expect(messages({ commandConfig: join(dir, 'nope') })).toBe(
      `--command-config: no file at ${join(dir, 'nope')}`,
    );
    expect(messages({ saslPasswordFile: join(dir, 'nope') })).toBe(
      `--sasl-password-file: no file at ${join(dir, 'nope')}`,
    );
    const mtls = file('mtls.properties', 'ssl.keystore.location=/x.jks\n');
    expect(messages({ commandConfig: mtls })).toContain('client certificates (mutual TLS) are not supported');
  });
});

describe('kstreams commands with security options', () => {
  it('bad security options exit 2 with one line, and never print the password', async () => {
    const bad = file(
      'bad.properties',
      `security.protocol=SASL_SSL\nsasl.mechanism=OAUTHBEARER\nsasl.jaas.config=${jaas('app', SECRET)}\n`,
    );
    for (const args of [
      ['lag', '--application-id', 'a', '--command-config', bad],
      ['reset', '--application-id', 'a', '--dry-run', '--command-config', bad],
      ['verify', 't', '--expect-sequences', '--command-config', bad],
    ]) {
      const r = await cli(args);
      expect(r.code).toBe(2);
      expect(r.err).toBe(
        `kstreams: sasl.mechanism in ${bad}: SASL mechanism must be one of PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, got 'OAUTHBEARER'\n`,
      );
      expect(r.out + r.err).not.toContain(SECRET);
    }
    const env = await cli(['lag', '--application-id', 'a'], {
      KAFKA_SASL_PASSWORD: SECRET,
      KAFKA_SECURITY_PROTOCOL: 'PLAINTEXT',
    });
    expect(env.code).toBe(2);
    expect(env.err).toContain(
      'security protocol PLAINTEXT (KAFKA_SECURITY_PROTOCOL) does not use SASL, yet the SASL password is set (KAFKA_SASL_PASSWORD)',
    );
    expect(env.err).not.toContain(SECRET);
  });

  it('refuses a password on the command line, pointing to the ways that keep it out of `ps`', async () => {
    const r = await cli(['lag', '--application-id', 'a', '--sasl-password', SECRET]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('--sasl-password is not taken');
    expect(r.err).toContain('use --sasl-password-file FILE, KAFKA_SASL_PASSWORD');
    expect(r.err).not.toContain(SECRET);
    const choice = await cli(['lag', '--application-id', 'a', '--security-protocol', 'TLS']);
    expect(choice.code).toBe(2);
    expect(choice.err).toContain('Allowed choices are PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL');
  });

  it('lists the options in every Kafka command’s help', async () => {
    for (const command of ['verify', 'lag', 'reset']) {
      const r = await cli([command, '--help']);
      for (const option of [
        '--command-config',
        '--security-protocol',
        '--sasl-mechanism',
        '--sasl-username',
        '--sasl-password-file',
        '--ssl-ca',
      ])
        expect(r.out).toContain(option);
    }
  });
});

describe('refusals, explained', () => {
  const security = resolveClientSecurity({ commandConfig: clientProperties }, {});
  const call = kafkaCall({
    command: 'lag',
    brokers: ['kafka-1:9094'],
    security,
    needs: [
      {
        resourceType: 'Group' as const,
        name: 'orders',
        pattern: 'literal' as const,
        operations: ['Describe'],
      },
    ],
  });

  it('a refused SASL login names where the credentials were set', () => {
    const e = explainKafkaError(
      {
        name: 'KafkaJSNonRetriableError',
        cause: { name: 'KafkaJSSASLAuthenticationError', message: 'SASL SCRAM SHA512 authentication failed' },
      },
      call,
    );
    expect(e).toBeInstanceOf(AuthenticationError);
    expect(e?.message).toContain("refused user 'app' (SASL scram-sha-512)");
    expect(e?.message).toContain(
      `Check the SASL user and password (sasl.jaas.config in ${clientProperties})`,
    );
    expect(e?.message).not.toContain(SECRET);
    expect(e?.message).not.toContain('\n');
  });

  it('an untrusted certificate names the CA setting', () => {
    const e = explainKafkaError(
      {
        name: 'KafkaJSConnectionError',
        code: 'SELF_SIGNED_CERT_IN_CHAIN',
        message: 'self-signed certificate in certificate chain',
      },
      call,
    );
    expect(e).toBeInstanceOf(AuthenticationError);
    expect(e?.message).toContain(
      `Set the CA certificate (ssl.ca.location in ${clientProperties}) to the certificate of the CA`,
    );
  });

  it('a missing ACL names the user, what the command needs, and the kafka-acls line', () => {
    const e = explainKafkaError({ name: 'KafkaJSProtocolError', type: 'GROUP_AUTHORIZATION_FAILED' }, call);
    expect(e).toBeInstanceOf(AuthorizationError);
    expect(e?.message).toBe(
      "User:app is not authorized to Describe Group 'orders' (GROUP_AUTHORIZATION_FAILED). To fix, kstreams lag needs Describe on group 'orders': " +
        'kafka-acls.sh --bootstrap-server kafka-1:9094 --command-config admin.properties --add --allow-principal User:app --operation Describe --group orders',
    );
    expect(explainKafkaError(new Error('something else'), call)).toBeUndefined();
  });

  it('no broker answering names the flag and the protocol it expected', () => {
    const e = explainKafkaError(
      {
        name: 'KafkaJSNumberOfRetriesExceeded',
        cause: {
          name: 'KafkaJSConnectionError',
          code: 'ECONNREFUSED',
          message: 'Connection error: connect ECONNREFUSED',
        },
      },
      call,
    );
    expect(e?.message).toBe(
      'no Kafka broker answered at kafka-1:9094 (Connection error: connect ECONNREFUSED): check --brokers (or KAFKA_BROKERS), ' +
        'and that they listen for SASL_SSL (--security-protocol, or security.protocol in --command-config)',
    );
  });
});
