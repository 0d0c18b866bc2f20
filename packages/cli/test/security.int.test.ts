// `kstreams verify`, `lag` and `reset --dry-run` on a broker of its own that speaks only
// SASL/SCRAM-SHA-512 over TLS and enforces ACLs: as a user granted what the commands say they need
// they work, through a --command-config file, flags or variables; a wrong password fails fast, an
// untrusted CA and a missing ACL fail with one line that says what to change; no password shows.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { AclOperationTypes, AclResourceTypes, ResourcePatternTypes } from 'kafkajs';
import { beforeAll, describe, expect, it } from 'vitest';
import { type AclRule, secureBrokerForThisFile } from '../../../scripts/test/secure-broker.ts';
import { createTopics, produce, uniqueName } from '../../core/test/runtime/kafka-helpers.ts';
import { runCli } from '../src/index.ts';
import type { LagRow } from '../src/ops/lag.ts';

const broker = secureBrokerForThisFile(19892, ['app', 'noacl', 'nogroup']);
const { brokers } = broker;
/** Known passwords: what the secret search looks for. */
const APP_PASSWORD = broker.passwords.app;
const WRONG_PASSWORD = `wrong-${randomBytes(8).toString('hex')}`;
const dir = mkdtempSync(join(tmpdir(), 'kstreams-cli-secure-'));
const tag = uniqueName('cli-sec');
const topic = `${tag}-in`;
const applicationId = `${tag}-app`;
/** Every stdout and stderr of every command run here: the password must be in none. */
const outputs: string[] = [];
let ca: string;
let appConfig: string;

async function cli(args: string[], env: NodeJS.ProcessEnv = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const began = Date.now();
  const code = await runCli(
    [...args, '--brokers', brokers],
    { out: (s) => out.push(s), err: (s) => err.push(s) },
    env,
  );
  const r = { code, out: out.join(''), err: err.join(''), tookMs: Date.now() - began };
  outputs.push(r.out, r.err);
  return r;
}

const properties = (user: string, password: string) => {
  const path = join(dir, `${user}-${password.slice(0, 5)}.properties`);
  writeFileSync(
    path,
    [
      'security.protocol=SASL_SSL',
      'sasl.mechanism=SCRAM-SHA-512',
      `sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="${user}" password="${password}";`,
      `ssl.ca.location=${ca}`,
    ].join('\n'),
    { mode: 0o600 },
  );
  return path;
};

beforeAll(async () => {
  ca = broker.caFile();
  appConfig = properties('app', APP_PASSWORD);
  const kafka = broker.kafka();
  await createTopics(kafka, [{ topic, numPartitions: 1 }]);
  // Exactly the ACLs the commands name as needed (see their errors): nothing more.
  const { TOPIC, GROUP } = AclResourceTypes;
  const { READ, DESCRIBE } = AclOperationTypes;
  const { LITERAL, PREFIXED } = ResourcePatternTypes;
  const readTopic: AclRule = [TOPIC, topic, LITERAL, [READ, DESCRIBE]];
  await broker.allow('app', [
    readTopic,
    [GROUP, 'kstreams-verify-', PREFIXED, [READ]],
    [GROUP, applicationId, LITERAL, [DESCRIBE]],
  ]);
  await broker.allow('nogroup', [readTopic]);
  const long = (n: number) => {
    const b = Buffer.alloc(8);
    b.writeBigInt64BE(BigInt(n));
    return b;
  };
  await produce(
    topic,
    ['a', 'b', 'a', 'b', 'a', 'b'].map((key, i) => ({ key, value: long(Math.floor(i / 2) + 1) })),
    kafka,
  );
  // The app's group has read two of the six records.
  const admin = kafka.admin();
  await admin.connect();
  await admin.setOffsets({ groupId: applicationId, topic, partitions: [{ partition: 0, offset: '2' }] });
  await admin.disconnect();
}, 120_000);

describe('kstreams on a SASL_SSL cluster with ACLs', () => {
  it('verify, lag and reset --dry-run work as the authorized user, from a properties file, flags or variables', async () => {
    const verify = await cli([
      'verify',
      topic,
      '--expect-sequences',
      '--idle-ms',
      '1000',
      '--command-config',
      appConfig,
    ]);
    expect(verify.err).toBe('');
    expect(verify.code).toBe(0);
    expect(verify.out).toContain(`${topic}: 6 records, 2 keys`);
    expect(verify.out).toContain('OK: no duplicates, gaps or losses');

    // Flags and a password file, the mechanism from a variable.
    const passwordFile = join(dir, 'app-password');
    writeFileSync(passwordFile, `${APP_PASSWORD}\n`, { mode: 0o600 });
    const lag = await cli(
      [
        'lag',
        '--application-id',
        applicationId,
        '--json',
        '--sasl-username',
        'app',
        '--sasl-password-file',
        passwordFile,
        '--ssl-ca',
        ca,
      ],
      { KAFKA_SASL_MECHANISM: 'SCRAM-SHA-512' },
    );
    expect(lag.err).toBe('');
    expect(lag.code).toBe(0);
    expect(JSON.parse(lag.out) as LagRow[]).toEqual([
      { topic, partition: 0, committed: 2, end: 6, lag: 4, lagFrom: 'committed', owner: null },
    ]);

    // Variables only, as in CI.
    const reset = await cli(
      ['reset', '--application-id', applicationId, '--input-topics', topic, '--dry-run'],
      {
        KAFKA_SASL_MECHANISM: 'SCRAM-SHA-512',
        KAFKA_SASL_USERNAME: 'app',
        KAFKA_SASL_PASSWORD: APP_PASSWORD,
        KAFKA_SSL_CA: ca,
      },
    );
    expect(reset.err).toBe('');
    expect(reset.code).toBe(0);
    expect(reset.out).toContain(`(dry run) reset ${applicationId} on ${topic}: p0 2 → 0`);
    expect(reset.out).toContain('dry run: nothing changed');

    // The real bin, as a user runs it.
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [
      join(import.meta.dirname, '../bin/kstreams.mjs'),
      'lag',
      '--application-id',
      applicationId,
      '--brokers',
      brokers,
      '--command-config',
      appConfig,
    ]);
    outputs.push(stdout, stderr);
    expect(stdout.split('\n')[1]).toMatch(new RegExp(`^${topic}\\s+0\\s+2\\s+6\\s+4\\s+-$`));
  });

  it('a wrong password fails fast and an untrusted CA fails, each with one line naming what to change', async () => {
    const [wrong, untrusted] = await Promise.all([
      cli(['lag', '--application-id', applicationId, '--command-config', properties('app', WRONG_PASSWORD)]),
      cli(
        [
          'verify',
          topic,
          '--expect-sequences',
          '--security-protocol',
          'SASL_SSL',
          '--sasl-mechanism',
          'SCRAM-SHA-512',
          '--sasl-username',
          'app',
        ],
        {
          KAFKA_SASL_PASSWORD: APP_PASSWORD,
        },
      ),
    ]);
    console.log(
      `[cli-security] wrong password: exit ${wrong.code} after ${wrong.tookMs} ms: ${wrong.err.trim()}`,
    );
    console.log(
      `[cli-security] untrusted CA: exit ${untrusted.code} after ${untrusted.tookMs} ms: ${untrusted.err.trim()}`,
    );
    expect(wrong.code).toBe(1);
    expect(wrong.tookMs).toBeLessThan(5_000);
    expect(wrong.out).toBe('');
    expect(wrong.err.trim().split('\n')).toHaveLength(1);
    expect(wrong.err).toMatch(
      /^kstreams lag: The brokers at 127\.0\.0\.1:19892 refused user 'app' \(SASL scram-sha-512\)/,
    );
    expect(wrong.err).toContain('Check the SASL user and password (sasl.jaas.config in ');

    expect(untrusted.code).toBe(1);
    expect(untrusted.err.trim().split('\n')).toHaveLength(1);
    expect(untrusted.err).toContain('kstreams verify: TLS with the brokers at 127.0.0.1:19892 failed');
    expect(untrusted.err).toContain('Set the CA certificate (--ssl-ca FILE)');
  });

  it('missing ACLs: one line with the user, what the command needs and the kafka-acls line', async () => {
    const noacl = properties('noacl', broker.passwords.noacl);
    const r = await cli(['lag', '--application-id', applicationId, '--command-config', noacl]);
    console.log(`[cli-security] missing ACL: exit ${r.code} after ${r.tookMs} ms: ${r.err.trim()}`);
    expect(r.code).toBe(1);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toContain(
      `kstreams lag: User:noacl is not authorized to Describe Group '${applicationId}' (GROUP_AUTHORIZATION_FAILED)`,
    );
    expect(r.err).toContain(`--allow-principal User:noacl --operation Describe --group ${applicationId}`);

    // The topic may be read, its group may not be joined: a failure, not an empty, clean topic.
    const v = await cli([
      'verify',
      topic,
      '--expect-sequences',
      '--command-config',
      properties('nogroup', broker.passwords.nogroup),
    ]);
    console.log(
      `[cli-security] verify without the group ACL: exit ${v.code} after ${v.tookMs} ms: ${v.err.trim()}`,
    );
    expect(v.out).toBe('');
    expect(v.code).toBe(1);
    expect(v.err).toContain(
      "kstreams verify: User:nogroup is not authorized to Read Group 'kstreams-verify-*' (GROUP_AUTHORIZATION_FAILED)",
    );
    expect(v.err).toContain('--operation Read --group kstreams-verify- --resource-pattern-type prefixed');
  });

  it('the password shows in no output', () => {
    const all = outputs.join('\n');
    expect(all).toContain(topic);
    expect(all).not.toContain(APP_PASSWORD);
    expect(all).not.toContain(WRONG_PASSWORD);
  });
});
