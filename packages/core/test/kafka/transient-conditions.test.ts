import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { logLevel } from 'kafkajs';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { BrokerUnreachableError, ConfigError, KafkaStreams, Topology } from '../../src/index.ts';
import { pinoLogCreator } from '../../src/kafka/client.ts';
import { TransientConditions } from '../../src/kafka/transient-conditions.ts';

function capture() {
  const lines: Array<{ level: number; msg: string; condition?: string }> = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { logger, lines };
}

describe("kafkajs' self-resolving conditions", () => {
  it('go to debug, and to warn only once they have lasted', () => {
    let now = 0;
    const { logger, lines } = capture();
    const log = pinoLogCreator(
      logger,
      new TransientConditions({ lastingMs: 30_000, gapMs: 10_000, now: () => now }),
    )(logLevel.ERROR);
    const loading = () =>
      log({
        namespace: 'Connection',
        level: logLevel.ERROR,
        label: 'ERROR',
        log: {
          timestamp: '',
          logger: 'kafkajs',
          message: 'Response FindCoordinator(key: 10, version: 2)',
          error: "The coordinator is loading and hence can't process requests for this group",
        },
      });
    for (; now <= 20_000; now += 5_000) loading();
    expect(lines.map((l) => l.level)).toEqual([20, 20, 20, 20, 20]);
    // A pause longer than the gap: it resolved; seen again, it starts over.
    now = 40_000;
    loading();
    now = 69_000;
    for (let t = 45_000; t <= 69_000; t += 6_000) {
      now = t;
      loading();
    }
    expect(lines.every((l) => l.level === 20)).toBe(true);
    now = 72_000;
    loading();
    expect(lines.at(-1)).toMatchObject({ level: 40, condition: 'the coordinator is loading' });
    expect(lines.at(-1)!.msg).toMatch(/^the coordinator is loading: still so after 32 s/);
    // Other errors stay errors.
    log({
      namespace: 'Producer',
      level: logLevel.ERROR,
      label: 'ERROR',
      log: { timestamp: '', logger: 'kafkajs', message: 'Topic authorization failed' },
    });
    expect(lines.at(-1)).toMatchObject({ level: 50, msg: 'Topic authorization failed' });
  });
});

describe('start-up errors', () => {
  it("BrokerUnreachableError recognises kafkajs' connection error under its retry wrapper", () => {
    const cause = Object.assign(new Error('Connection error: connect ECONNREFUSED 127.0.0.1:1'), {
      name: 'KafkaJSConnectionError',
      code: 'ECONNREFUSED',
    });
    const wrapped = Object.assign(new Error(cause.message), {
      name: 'KafkaJSNumberOfRetriesExceeded',
      cause,
    });
    const error = BrokerUnreachableError.from(wrapped, ['127.0.0.1:1']);
    expect(error?.message).toBe(
      'No Kafka broker answered at 127.0.0.1:1 (Connection error: connect ECONNREFUSED 127.0.0.1:1). Start Kafka there, or set the "brokers" setting to your cluster\'s addresses.',
    );
    expect(BrokerUnreachableError.from(new Error('Topic authorization failed'), ['b:1'])).toBeUndefined();
  });

  it('a stateDir that is a file, or under one, is a ConfigError when the app is created', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'kstreams-statedir-')), 'f');
    writeFileSync(file, '');
    const topology = new Topology().addSource('s', 'in');
    const create = (stateDir: string) =>
      new KafkaStreams(topology, { applicationId: 'a', brokers: '127.0.0.1:1', stateDir, logger: 'silent' });
    expect(() => create(file)).toThrow(ConfigError);
    expect(() => create(file)).toThrow(`"stateDir" ${file} is a file, not a directory`);
    expect(() => create(join(file, 'x'))).toThrow(`"stateDir" ${join(file, 'x')} lies under a file`);
  });
});
