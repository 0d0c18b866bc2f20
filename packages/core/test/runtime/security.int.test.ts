// Word count on a broker of its own that speaks SASL/SCRAM-SHA-512 over TLS (and, on two more
// listeners, SASL/PLAIN over TLS and mutual TLS with a client certificate) and enforces
// ACLs: under exactly_once with an app user granted what the app needs, the output is exact and
// the user's password shows up in no log line, error or description of the app; a user without
// rights on the app's transactional ids gets a clear authorization error, fast, not a hang.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { inspect } from 'node:util';
import { AclOperationTypes, AclResourceTypes, type Kafka, ResourcePatternTypes } from 'kafkajs';
import pino from 'pino';
import { beforeAll, describe, expect, it } from 'vitest';
import { type AclRule, secureBrokerForThisFile } from '../../../../scripts/test/secure-broker.ts';
import { AuthenticationError, AuthorizationError, KafkaStreams } from '../../src/index.ts';
import { wordCount } from './fixtures/word-count-topology.ts';
import {
  countSequences,
  createTopics,
  produce,
  readTopic,
  stopAfterEach,
  tempStateDir,
  uniqueName,
  waitFor,
} from './kafka-helpers.ts';

const broker = secureBrokerForThisFile(19692, ['app', 'notx'], { extraListeners: true });
const brokers = [broker.brokers];
/** Known passwords: what the secret search looks for. */
const APP_PASSWORD = broker.passwords.app;
const NOTX_PASSWORD = broker.passwords.notx;
const apps = stopAfterEach((app: KafkaStreams) => app.close({ timeoutMs: 20_000 }));
let admin: Kafka;

beforeAll(() => {
  admin = broker.kafka();
});

/**
 * Grants `user` what docs/security.md says an app needs, no more: Read on the input, Write on the
 * output, everything but Alter on its internal topics, its group(s) and (exactly_once) its
 * transactional ids.
 */
async function grantApp(
  user: 'app' | 'notx',
  t: { input: string; output: string; applicationId: string },
  without?: 'Group' | 'TransactionalId' | 'OutputWrite',
) {
  const { TOPIC, GROUP, TRANSACTIONAL_ID } = AclResourceTypes;
  const { READ, WRITE, CREATE, DESCRIBE } = AclOperationTypes;
  const { LITERAL, PREFIXED } = ResourcePatternTypes;
  const rules: AclRule[] = [
    [TOPIC, t.input, LITERAL, [READ, DESCRIBE]],
    [TOPIC, t.output, LITERAL, without === 'OutputWrite' ? [DESCRIBE] : [WRITE, DESCRIBE]],
    [TOPIC, `${t.applicationId}-`, PREFIXED, [CREATE, READ, WRITE, DESCRIBE]],
  ];
  // The app's group only: the restore and global readers assign their partitions (no group).
  if (without !== 'Group') rules.push([GROUP, t.applicationId, LITERAL, [READ, DESCRIBE]]);
  // exactly_once: one transactional id per task, `<applicationId>-<taskId>`.
  if (without !== 'TransactionalId')
    rules.push([TRANSACTIONAL_ID, `${t.applicationId}-`, PREFIXED, [WRITE, DESCRIBE]]);
  await broker.allow(user, rules);
}

/** A pino logger at trace (everything kstreams and kafkajs log) whose lines the test keeps. */
function capturedLogger() {
  const lines: string[] = [];
  const logger = pino({ level: 'trace' }, { write: (line: string) => void lines.push(line) });
  return { logger, lines };
}

function newApp(
  input: string,
  output: string,
  applicationId: string,
  user: 'app' | 'notx',
  client: { brokers: string[] } = { brokers, ...broker.clientConfig(user) },
) {
  const { logger, lines } = capturedLogger();
  const app = new KafkaStreams(wordCount(input, output), {
    applicationId,
    processingGuarantee: 'exactly_once',
    commitIntervalMs: 100,
    // The test checks every update (counts 1..n): no record cache.
    statestoreCacheMaxBytes: 0,
    stateDir: tempStateDir(),
    logger,
    ...client,
  });
  apps.push(app);
  return { app, lines };
}

/** Everything the app shows a person: its logs, its error, its descriptions and metrics. */
async function everythingShown(app: KafkaStreams, lines: string[]): Promise<string> {
  const error = app.error;
  return [
    ...lines,
    error ? `${error.message}\n${error.stack}\n${inspect(error, { depth: 9 })}` : '',
    app.topology.describe().toString(),
    JSON.stringify(app.metadataForLocalThreads()),
    JSON.stringify(app.metrics()),
    await app.metricsRegistry.metrics(),
    JSON.stringify(app.config),
    inspect(app.config, { depth: 9 }),
  ].join('\n');
}

describe('SASL_SSL with ACLs', () => {
  it('exactly_once word count as a user with the needed ACLs: exact counts, and no password in any output', async () => {
    const tag = uniqueName('sec');
    const input = `${tag}-in`;
    const output = `${tag}-out`;
    const applicationId = `${tag}-app`;
    await createTopics(admin, [
      { topic: input, numPartitions: 2 },
      { topic: output, numPartitions: 2 },
    ]);
    await grantApp('app', { input, output, applicationId });
    const words = ['alpha', 'beta', 'gamma', 'delta'];
    const lines = Array.from({ length: 40 }, (_, i) => `${words[i % 4]} ${words[(i * 3) % 4]}`);
    const expected = new Map<string, number>();
    for (const line of lines) for (const w of line.split(' ')) expected.set(w, (expected.get(w) ?? 0) + 1);
    await produce(
      input,
      lines.map((value, i) => ({ key: `k${i}`, value })),
      admin,
    );

    const { app, lines: logLines } = newApp(input, output, applicationId, 'app');
    await app.start();
    const records = await readTopic(
      output,
      (rs) => {
        const seqs = countSequences(rs);
        return [...expected].every(([w, n]) => seqs.get(w)?.at(-1) === n);
      },
      { kafka: admin, timeoutMs: 40_000, settleMs: 300 },
    );
    for (const [word, n] of expected) {
      expect(countSequences(records).get(word)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
    }
    expect(app.state).toBe('RUNNING');

    const shown = await everythingShown(app, logLines);
    await app.close();
    const all = `${shown}\n${logLines.join('')}`;
    // The search is worth something only if the logs are there, and name the user.
    expect(logLines.length).toBeGreaterThan(100);
    expect(all).toContain('"username":"app"');
    expect(all).not.toContain(APP_PASSWORD);
  });

  it('a user without rights on the transactional ids: a clear authorization error, fast', async () => {
    const tag = uniqueName('sec');
    const input = `${tag}-in`;
    const output = `${tag}-out`;
    const applicationId = `${tag}-app`;
    await createTopics(admin, [
      { topic: input, numPartitions: 1 },
      { topic: output, numPartitions: 1 },
    ]);
    await grantApp('notx', { input, output, applicationId }, 'TransactionalId');
    await produce(input, [{ key: 'k', value: 'alpha beta' }], admin);

    const { app, lines } = newApp(input, output, applicationId, 'notx');
    const began = Date.now();
    await app.start();
    await waitFor(() => app.state === 'ERROR', 30_000, 'the app to fail').catch((e: Error) => {
      // What it did instead (a retry loop, say): its last warnings.
      const warnings = lines.filter((l) => /"level":(40|50)/.test(l)).slice(-3);
      throw new Error(`${e.message}; last warnings:\n${warnings.map((l) => l.slice(0, 600)).join('\n')}`);
    });
    const tookMs = Date.now() - began;
    console.log(`[security] authorization failure reported after ${tookMs} ms: ${app.error?.message}`);
    expect(tookMs).toBeLessThan(20_000);

    const error = app.error;
    expect(error).toBeInstanceOf(AuthorizationError);
    const e = error as AuthorizationError;
    expect(e).toMatchObject({
      principal: 'User:notx',
      resourceType: 'TransactionalId',
      operation: 'Write',
    });
    // The first task's transactional id to be refused: which task comes first is not fixed.
    expect(e.resourceName).toMatch(new RegExp(`^${applicationId}-\\d+_0$`));
    expect(e.message).toContain(`User:notx is not authorized to Write TransactionalId '${e.resourceName}'`);
    // What to change: the ACL that is missing, by prefix.
    expect(e.message).toContain(`--transactional-id ${applicationId}- --resource-pattern-type prefixed`);
    expect(await everythingShown(app, lines)).not.toContain(NOTX_PASSWORD);
  });

  it('a user without rights on the group: a clear authorization error naming the group, fast', async () => {
    const tag = uniqueName('sec');
    const t = { input: `${tag}-in`, output: `${tag}-out`, applicationId: `${tag}-app` };
    await createTopics(admin, [
      { topic: t.input, numPartitions: 1 },
      { topic: t.output, numPartitions: 1 },
    ]);
    await grantApp('notx', t, 'Group');
    const { app } = newApp(t.input, t.output, t.applicationId, 'notx');
    const began = Date.now();
    await app.start();
    await waitFor(() => app.state === 'ERROR', 30_000, 'the app to fail');
    console.log(`[security] group refusal reported after ${Date.now() - began} ms: ${app.error?.message}`);
    expect(Date.now() - began).toBeLessThan(20_000);
    expect(app.error).toBeInstanceOf(AuthorizationError);
    expect(app.error).toMatchObject({
      resourceType: 'Group',
      resourceName: t.applicationId,
      operation: 'Read',
    });
    expect(app.error?.message).toContain(`--group ${t.applicationId} --resource-pattern-type prefixed`);
  });

  it('no Write on the output topic: an AuthorizationError, and the production handler is not asked (as in Java)', async () => {
    const tag = uniqueName('sec');
    const t = { input: `${tag}-in`, output: `${tag}-out`, applicationId: `${tag}-app` };
    await createTopics(admin, [
      { topic: t.input, numPartitions: 1 },
      { topic: t.output, numPartitions: 1 },
    ]);
    await grantApp('notx', t, 'OutputWrite');
    await produce(t.input, [{ key: 'k', value: 'alpha beta' }], admin);
    const asked: Error[] = [];
    const client = {
      brokers,
      ...broker.clientConfig('notx'),
      // 'continue' would drop the records: Kafka Streams never lets it for a denied write.
      productionExceptionHandler: (error: Error) => {
        asked.push(error);
        return 'continue' as const;
      },
    };
    const { app } = newApp(t.input, t.output, t.applicationId, 'notx', client);
    await app.start();
    await waitFor(() => app.state === 'ERROR', 30_000, 'the app to fail');
    expect(app.error).toBeInstanceOf(AuthorizationError);
    expect(app.error).toMatchObject({ resourceType: 'Topic', resourceName: t.output, operation: 'Write' });
    expect(asked).toEqual([]);
  });

  it('a wrong password or an untrusted CA: start() fails with an AuthenticationError naming the setting', async () => {
    const wrongPassword = `wrong-${randomBytes(8).toString('hex')}`;
    const attempt = async (extra: object) => {
      const { logger, lines } = capturedLogger();
      const app = new KafkaStreams(wordCount('sec-none-in', 'sec-none-out'), {
        applicationId: uniqueName('sec-auth'),
        brokers,
        stateDir: tempStateDir(),
        logger,
        ...broker.clientConfig('app'),
        ...extra,
      });
      apps.push(app);
      const began = Date.now();
      const error = await app.start().then(
        () => undefined,
        (e: Error) => e,
      );
      return { error, tookMs: Date.now() - began, shown: await everythingShown(app, lines) };
    };

    const sasl = await attempt({
      sasl: { mechanism: 'scram-sha-512', username: 'app', password: wrongPassword },
    });
    console.log(`[security] wrong password reported after ${sasl.tookMs} ms: ${sasl.error?.message}`);
    expect(sasl.error).toBeInstanceOf(AuthenticationError);
    expect(sasl.error?.message).toContain("refused user 'app' (SASL scram-sha-512)");
    expect(sasl.error?.message).toContain('Check "sasl.username", "sasl.password"');
    expect(sasl.shown).not.toContain(wrongPassword);
    expect(sasl.shown).not.toContain(APP_PASSWORD);

    const tls = await attempt({ ssl: true });
    console.log(`[security] untrusted CA reported after ${tls.tookMs} ms: ${tls.error?.message}`);
    expect(tls.error).toBeInstanceOf(AuthenticationError);
    expect(tls.error?.message).toContain('Set "ssl.ca"');
    expect(tls.shown).not.toContain(APP_PASSWORD);
  });
});

/** The PLAIN listener's settings for `user` (the SCRAM users, with their passwords). */
const plainClient = (password = APP_PASSWORD) => ({
  brokers: [broker.plainBrokers],
  ssl: { ca: [readFileSync(broker.caFile(), 'utf8')] },
  sasl: { mechanism: 'plain' as const, username: 'app', password },
});

/** The mutual-TLS listener's settings: the CA, and app's client certificate unless `withCert` is false. */
const mtlsClient = (withCert = true) => {
  const files = broker.clientCertificate('app');
  return {
    brokers: [broker.mtlsBrokers],
    ssl: {
      ca: [readFileSync(broker.caFile(), 'utf8')],
      ...(withCert ? { cert: readFileSync(files.cert, 'utf8'), key: readFileSync(files.key, 'utf8') } : {}),
    },
  };
};

describe('SASL/PLAIN over TLS and mutual TLS, beside SCRAM', () => {
  it.each([
    ['SASL/PLAIN', () => plainClient()],
    ['mutual TLS (CN=app)', () => mtlsClient()],
  ])('%s: exactly_once word count as app, exact counts', async (_name, client) => {
    const tag = uniqueName('sec2');
    const t = { input: `${tag}-in`, output: `${tag}-out`, applicationId: `${tag}-app` };
    await createTopics(admin, [
      { topic: t.input, numPartitions: 2 },
      { topic: t.output, numPartitions: 2 },
    ]);
    await grantApp('app', t);
    const lines = Array.from({ length: 30 }, (_, i) => `one two${i % 3 === 0 ? ' three' : ''}`);
    await produce(
      t.input,
      lines.map((value, i) => ({ key: `k${i}`, value })),
      admin,
    );
    const expected = new Map([
      ['one', 30],
      ['two', 30],
      ['three', 10],
    ]);
    const { app } = newApp(t.input, t.output, t.applicationId, 'app', client());
    await app.start();
    const records = await readTopic(
      t.output,
      (rs) => [...expected].every(([w, n]) => countSequences(rs).get(w)?.at(-1) === n),
      { kafka: admin, timeoutMs: 40_000, settleMs: 300 },
    );
    for (const [word, n] of expected)
      expect(countSequences(records).get(word)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
    expect(app.state).toBe('RUNNING');
  });

  it('a wrong PLAIN password, or no client certificate: start() fails naming what to set', async () => {
    const start = async (client: { brokers: string[] }) => {
      const app = new KafkaStreams(wordCount('sec2-none-in', 'sec2-none-out'), {
        applicationId: uniqueName('sec2-auth'),
        stateDir: tempStateDir(),
        logger: 'silent',
        ...client,
      });
      apps.push(app);
      return app.start().then(
        () => undefined,
        (e: Error) => e,
      );
    };
    const wrongPassword = `wrong-${randomBytes(8).toString('hex')}`;
    const plain = await start(plainClient(wrongPassword));
    expect(plain).toBeInstanceOf(AuthenticationError);
    expect(plain?.message).toContain("refused user 'app' (SASL plain)");
    expect(plain?.message).toContain('Check "sasl.username", "sasl.password"');
    expect(plain?.message).not.toContain(wrongPassword);

    const noCert = await start(mtlsClient(false));
    // The whole error when it is something else: what the client saw of the broker's refusal.
    expect(noCert, inspect(noCert, { depth: 8 })).toBeInstanceOf(AuthenticationError);
    expect(noCert?.message).toMatch(/require a client certificate/);
    expect(noCert?.message).toContain('Set "ssl.cert" and "ssl.key"');
  });
});
