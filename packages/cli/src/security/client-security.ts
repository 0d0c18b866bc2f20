// The ssl/sasl settings of the CLI's Kafka clients, from three places, as Kafka's own tools and CI
// use them: flags (--security-protocol, --sasl-*, --ssl-ca), environment variables (KAFKA_*), and
// a Java-style properties file (--command-config). A flag beats a variable, which beats the file.
// Each setting remembers where it came from, so that an error can say what to change; the
// password is never printed (core's checks wrap it so that JSON and inspect show [redacted]).
import { existsSync, readFileSync } from 'node:fs';
import { resolveSasl, resolveSsl } from '@kstreams/core';
import type { KafkaConfig } from 'kafkajs';
import { parseJaas } from './jaas.ts';
import { SecurityOptionsError } from './options-error.ts';
import { parseProperties } from './properties.ts';

export interface SecurityFlags {
  commandConfig?: string;
  securityProtocol?: string;
  saslMechanism?: string;
  saslUsername?: string;
  saslPasswordFile?: string;
  sslCa?: string;
}

export const PROTOCOLS = ['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL'] as const;
export type SecurityProtocol = (typeof PROTOCOLS)[number];
/** Java's names; kafkajs takes them lower case. GSSAPI and OAUTHBEARER need code, not options. */
export const MECHANISMS = ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'] as const;

export interface ClientSecurity {
  protocol: SecurityProtocol;
  /** Passed to kafkajs as they are; secrets print as [redacted]. */
  kafkaConfig: Pick<KafkaConfig, 'ssl' | 'sasl'>;
  username?: string;
  /** Where to change the credentials and the CA, in the user's terms (for error messages). */
  settings: { credentials: string; ca: string };
  /** Keys of the properties file that the CLI does not use. */
  ignored: string[];
}

interface Setting {
  value: string;
  from: string;
}

type Key = 'protocol' | 'mechanism' | 'username' | 'password' | 'ca';

const ENV: Record<string, Key | 'passwordFile'> = {
  KAFKA_SECURITY_PROTOCOL: 'protocol',
  KAFKA_SASL_MECHANISM: 'mechanism',
  KAFKA_SASL_USERNAME: 'username',
  KAFKA_SASL_PASSWORD: 'password',
  KAFKA_SASL_PASSWORD_FILE: 'passwordFile',
  KAFKA_SSL_CA: 'ca',
};

/** Keys a Java client's file may hold that mean nothing here, or the same as a key used here. */
const HARMLESS = /^(ssl\.truststore\.password|ssl\.endpoint\.identification\.algorithm|client\.id)$/;

export function resolveClientSecurity(
  flags: SecurityFlags,
  env: NodeJS.ProcessEnv = process.env,
): ClientSecurity {
  const settings = new Map<Key, Setting>();
  const ignored: string[] = [];
  const file = flags.commandConfig ?? env.KAFKA_COMMAND_CONFIG;
  if (file !== undefined && file !== '')
    fromFile(file, flags.commandConfig ? '--command-config' : 'KAFKA_COMMAND_CONFIG', settings, ignored);
  for (const [name, key] of Object.entries(ENV)) {
    const value = env[name];
    if (value === undefined || value === '') continue;
    if (key === 'passwordFile') settings.set('password', readSecretFile(value, name));
    else settings.set(key, { value, from: name });
  }
  const flag = (key: Key, value: string | undefined, from: string) => {
    if (value !== undefined) settings.set(key, { value, from });
  };
  flag('protocol', flags.securityProtocol, '--security-protocol');
  flag('mechanism', flags.saslMechanism, '--sasl-mechanism');
  flag('username', flags.saslUsername, '--sasl-username');
  if (flags.saslPasswordFile !== undefined)
    settings.set('password', readSecretFile(flags.saslPasswordFile, '--sasl-password-file'));
  flag('ca', flags.sslCa, '--ssl-ca');
  return build(settings, ignored);
}

function fromFile(path: string, option: string, settings: Map<Key, Setting>, ignored: string[]) {
  if (!existsSync(path)) throw new SecurityOptionsError(`${option}: no file at ${path}`);
  const props = parseProperties(readFileSync(path, 'utf8'), path);
  const at = (key: string) => `${key} in ${path}`;
  const put = (key: Key, prop: string) => {
    const value = props.get(prop);
    if (value !== undefined) settings.set(key, { value, from: at(prop) });
  };
  put('protocol', 'security.protocol');
  put('mechanism', 'sasl.mechanism');
  // librdkafka's names, for files shared with its tools (kcat).
  put('username', 'sasl.username');
  put('password', 'sasl.password');
  put('ca', 'ssl.ca.location');
  const jaas = props.get('sasl.jaas.config');
  if (jaas !== undefined) {
    const login = parseJaas(jaas, at('sasl.jaas.config'));
    for (const key of ['username', 'password'] as const) {
      const value = login.options.get(key);
      if (value !== undefined) settings.set(key, { value, from: at('sasl.jaas.config') });
    }
    if (!props.has('sasl.mechanism') && login.module === 'PlainLoginModule')
      settings.set('mechanism', { value: 'PLAIN', from: at('sasl.jaas.config') });
  }
  const truststore = props.get('ssl.truststore.location');
  if (truststore !== undefined) {
    if ((props.get('ssl.truststore.type') ?? 'JKS').toUpperCase() !== 'PEM')
      throw new SecurityOptionsError(
        `${at('ssl.truststore.location')}: a JKS or PKCS12 truststore is Java's; give the CA certificate as a PEM ` +
          'file instead: ssl.ca.location=ca.pem (or ssl.truststore.type=PEM), e.g. from ' +
          '`keytool -exportcert -rfc -alias <ca> -keystore <truststore> -file ca.pem`',
      );
    settings.set('ca', { value: truststore, from: at('ssl.truststore.location') });
  }
  for (const key of props.keys()) {
    if (/^ssl\.(keystore\.|key\.|certificate\.)/.test(key))
      throw new SecurityOptionsError(
        `${at(key)}: client certificates (mutual TLS) are not supported by the kstreams CLI; authenticate with SASL`,
      );
    const used =
      /^(security\.protocol|sasl\.(mechanism|jaas\.config|username|password)|ssl\.(ca\.location|truststore\.(location|type)))$/;
    if (!used.test(key) && !HARMLESS.test(key)) ignored.push(key);
  }
}

function readSecretFile(path: string, option: string): Setting {
  if (!existsSync(path)) throw new SecurityOptionsError(`${option}: no file at ${path}`);
  // One trailing newline is the editor's, not the password's.
  return { value: readFileSync(path, 'utf8').replace(/\r?\n$/, ''), from: `${option} (${path})` };
}

function build(settings: Map<Key, Setting>, ignored: string[]): ClientSecurity {
  const get = (k: Key) => settings.get(k);
  const from = (k: Key, fallback: string) => get(k)?.from ?? fallback;
  const problems: string[] = [];
  const protocolSetting = get('protocol');
  const saslGiven = (['mechanism', 'username', 'password'] as const).filter((k) => get(k) !== undefined);
  let protocol: SecurityProtocol;
  if (protocolSetting) {
    const p = protocolSetting.value.toUpperCase();
    if (!(PROTOCOLS as readonly string[]).includes(p))
      throw new SecurityOptionsError(
        `${protocolSetting.from}: security protocol must be one of ${PROTOCOLS.join(', ')}, got '${protocolSetting.value}'`,
      );
    protocol = p as SecurityProtocol;
  } else {
    // No protocol: SASL settings mean SASL over TLS (never credentials in clear unless asked).
    protocol = saslGiven.length > 0 ? 'SASL_SSL' : get('ca') ? 'SSL' : 'PLAINTEXT';
  }
  const useSasl = protocol.startsWith('SASL_');
  const useSsl = protocol.endsWith('SSL');
  if (!useSasl && saslGiven.length > 0)
    problems.push(
      `security protocol ${protocol} (${from('protocol', 'the default')}) does not use SASL, yet ${saslGiven
        .map((k) => `the SASL ${k} is set (${from(k, '')})`)
        .join(' and ')}: use SASL_SSL`,
    );
  if (!useSsl && get('ca'))
    problems.push(
      `security protocol ${protocol} (${from('protocol', 'the default')}) does not use TLS, yet a CA is set (${from('ca', '')}): use SSL or SASL_SSL`,
    );
  const kafkaConfig: ClientSecurity['kafkaConfig'] = {};
  if (useSsl) kafkaConfig.ssl = resolveSsl(sslOptions(get('ca')), problems) as KafkaConfig['ssl'];
  if (useSasl) kafkaConfig.sasl = saslOptions(get, from, problems) as KafkaConfig['sasl'];
  if (problems.length > 0) throw new SecurityOptionsError(problems.join('; '));
  const username = useSasl ? get('username')?.value : undefined;
  return {
    protocol,
    kafkaConfig,
    ...(username !== undefined ? { username } : {}),
    settings: {
      credentials: credentialSources([
        ['user', from('username', '--sasl-username')],
        ['password', from('password', '--sasl-password-file')],
        ['mechanism', from('mechanism', '--sasl-mechanism')],
      ]),
      ca: `the CA certificate (${from('ca', '--ssl-ca FILE')})`,
    },
    ignored,
  };
}

/** "the SASL user and password (sasl.jaas.config in f) and mechanism (--sasl-mechanism)". */
function credentialSources(parts: Array<[string, string]>): string {
  const bySource = new Map<string, string[]>();
  for (const [what, source] of parts) bySource.set(source, [...(bySource.get(source) ?? []), what]);
  const groups = [...bySource].map(([source, whats]) => `${whats.join(' and ')} (${source})`);
  return `the SASL ${groups.join(groups.length > 2 ? ', ' : ' and ').replace(/, (?=[^,]*$)/, ' and ')}`;
}

function sslOptions(ca: Setting | undefined): unknown {
  if (ca === undefined) return true;
  if (!existsSync(ca.value))
    throw new SecurityOptionsError(`${ca.from}: no CA certificate file at ${ca.value}`);
  const pem = readFileSync(ca.value, 'utf8');
  if (!pem.includes('-----BEGIN CERTIFICATE-----'))
    throw new SecurityOptionsError(
      `${ca.from}: ${ca.value} is not a PEM certificate (-----BEGIN CERTIFICATE-----); export a Java truststore's CA with ` +
        '`keytool -exportcert -rfc -alias <ca> -keystore <truststore> -file ca.pem`',
    );
  return { ca: [pem] };
}

function saslOptions(
  get: (k: Key) => Setting | undefined,
  from: (k: Key, fallback: string) => string,
  problems: string[],
): unknown {
  const mechanism = get('mechanism');
  if (mechanism === undefined) {
    problems.push(
      `SASL needs a mechanism: --sasl-mechanism ${MECHANISMS.join('|')} (or sasl.mechanism in the file)`,
    );
    return undefined;
  }
  const m = mechanism.value.toUpperCase();
  if (!(MECHANISMS as readonly string[]).includes(m)) {
    problems.push(
      `${mechanism.from}: SASL mechanism must be one of ${MECHANISMS.join(', ')}, got '${mechanism.value}'`,
    );
    return undefined;
  }
  const own: string[] = [];
  const sasl = resolveSasl(
    { mechanism: m.toLowerCase(), username: get('username')?.value, password: get('password')?.value },
    own,
  );
  // Core names its config keys; say which option or variable sets them instead.
  const names: Record<string, string> = {
    '"sasl.username"': `a SASL username (${from('username', '--sasl-username, KAFKA_SASL_USERNAME or sasl.jaas.config')})`,
    '"sasl.password"': `a SASL password (${from('password', '--sasl-password-file, KAFKA_SASL_PASSWORD or sasl.jaas.config')})`,
  };
  for (const p of own)
    problems.push(p.replace(/"sasl\.(username|password)"/, (k) => names[k] ?? k).replace(/^a/, 'A'));
  return sasl;
}
