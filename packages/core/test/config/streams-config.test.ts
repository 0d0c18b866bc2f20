import { describe, expect, it } from 'vitest';
import { resolveStreamsConfig, type StreamsConfig } from '../../src/config/streams-config.ts';
import { ConfigError, KafkaStreams, Topology } from '../../src/index.ts';

const base: StreamsConfig = { applicationId: 'app', brokers: ['127.0.0.1:9092'], logger: 'silent' };

function configError(config: unknown): ConfigError {
  try {
    resolveStreamsConfig(config as StreamsConfig);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('StreamsConfig', () => {
  it('fills in Kafka Streams’ defaults per guarantee', () => {
    const alo = resolveStreamsConfig(base);
    expect(alo).toMatchObject({
      processingGuarantee: 'at_least_once',
      commitIntervalMs: 30_000,
      exactlyOnce: false,
    });
    expect(alo.consumer.isolationLevel).toBe('read_uncommitted');
    const eos = resolveStreamsConfig({ ...base, processingGuarantee: 'exactly_once' });
    expect(eos).toMatchObject({ commitIntervalMs: 100, exactlyOnce: true });
    expect(eos.consumer.isolationLevel).toBe('read_committed');
    expect(eos.producer).toMatchObject({ idempotent: true, acks: -1, transactionTimeoutMs: 10_000 });
    expect(eos.producer.maxInFlightRequests).toBeLessThanOrEqual(5);
    expect(eos.producer.retries).toBeGreaterThan(0);
    expect(resolveStreamsConfig({ ...base, brokers: 'a:1, b:2' }).brokers).toEqual(['a:1', 'b:2']);
  });

  it("runs Kafka Streams' exactly_once_v2 with one transaction per thread, exactly_once with one per task", () => {
    const v2 = resolveStreamsConfig({ ...base, processingGuarantee: 'exactly_once_v2' });
    expect(v2).toMatchObject({
      processingGuarantee: 'exactly_once',
      exactlyOnce: true,
      exactlyOnceV2: true,
      commitIntervalMs: 100,
    });
    expect(resolveStreamsConfig({ ...base, processingGuarantee: 'exactly_once' }).exactlyOnceV2).toBe(false);
    expect(resolveStreamsConfig({ ...base, processingGuarantee: 'at_least_once' }).exactlyOnceV2).toBe(false);
    // The earlier switch for it says what replaced it.
    expect(configError({ ...base, experimentalTransactionPerThread: true } as never).message).toContain(
      `"experimentalTransactionPerThread" was removed: processingGuarantee 'exactly_once_v2' runs one transaction per stream thread`,
    );
    expect(v2.consumer.isolationLevel).toBe('read_committed');
    expect(v2.producer).toEqual(
      resolveStreamsConfig({ ...base, processingGuarantee: 'exactly_once' }).producer,
    );
    const err = configError({ ...base, processingGuarantee: 'exactly_once_beta' });
    expect(err.message).toContain(
      `"processingGuarantee" must be 'at_least_once' | 'exactly_once' | 'exactly_once_v2', got "exactly_once_beta"`,
    );
  });

  it('lists every unknown key and wrong type in one error', () => {
    const err = configError({ ...base, applicatonId: 'typo', commitIntervalMs: '100', stateDir: 5 });
    expect(err.message).toContain('unknown key "applicatonId"');
    expect(err.message).toContain('"commitIntervalMs" must be number, got "100"');
    expect(err.message).toContain('"stateDir" must be string, got 5');
  });

  it('requires applicationId and brokers, saying what they are for', () => {
    const err = configError({});
    expect(err.message).toMatch(/"applicationId" is required/);
    expect(err.message).toMatch(/"brokers" is required/);
  });

  it('sets the task watchdog above the commit interval, and refuses one that would recreate healthy tasks', () => {
    expect(resolveStreamsConfig(base).taskStallTimeoutMs).toBe(90_000);
    expect(resolveStreamsConfig({ ...base, processingGuarantee: 'exactly_once' }).taskStallTimeoutMs).toBe(
      60_000,
    );
    expect(resolveStreamsConfig({ ...base, taskStallTimeoutMs: 0 }).taskStallTimeoutMs).toBe(0);
    expect(configError({ ...base, commitIntervalMs: 5000, taskStallTimeoutMs: 8000 }).message).toContain(
      '"taskStallTimeoutMs" = 8000 must be at least twice commitIntervalMs (5000 ms), or 0 to turn the watchdog off',
    );
    expect(configError({ ...base, taskStallTimeoutMs: -1 }).message).toContain(
      '"taskStallTimeoutMs" must be',
    );
  });

  it('takes statestoreCacheMaxBytes as Kafka Streams: 10 MiB by default, 0 for no cache, nothing below', () => {
    expect(resolveStreamsConfig(base).statestoreCacheMaxBytes).toBe(10 * 1024 * 1024);
    expect(resolveStreamsConfig({ ...base, statestoreCacheMaxBytes: 0 }).statestoreCacheMaxBytes).toBe(0);
    expect(configError({ ...base, statestoreCacheMaxBytes: -1 }).message).toContain(
      '"statestoreCacheMaxBytes" must be a number of bytes >= 0 (0: no record cache), got -1',
    );
  });

  it('takes heapGrowingPercent: 50 by default, 0 to leave V8 its own choice, whole numbers only', () => {
    expect(resolveStreamsConfig(base).heapGrowingPercent).toBe(50);
    expect(resolveStreamsConfig({ ...base, heapGrowingPercent: 0 }).heapGrowingPercent).toBe(0);
    expect(resolveStreamsConfig({ ...base, heapGrowingPercent: 120 }).heapGrowingPercent).toBe(120);
    expect(configError({ ...base, heapGrowingPercent: 1.5 }).message).toContain(
      '"heapGrowingPercent" must be an integer >= 0 (0: V8 chooses), got 1.5',
    );
  });

  it('takes maxTaskIdleMs as Kafka Streams: 0 by default, -1 to never wait, nothing else below 0', () => {
    expect(resolveStreamsConfig(base).maxTaskIdleMs).toBe(0);
    expect(resolveStreamsConfig({ ...base, maxTaskIdleMs: -1 }).maxTaskIdleMs).toBe(-1);
    expect(resolveStreamsConfig({ ...base, maxTaskIdleMs: 250 }).maxTaskIdleMs).toBe(250);
    expect(configError({ ...base, maxTaskIdleMs: -5 }).message).toContain(
      '"maxTaskIdleMs" must be a number of ms >= 0, or -1 to never wait, got -5',
    );
  });

  it("takes groupInstanceId (KIP-345's group.instance.id): unset by default, letters, digits, '.', '_', '-'", () => {
    expect(resolveStreamsConfig(base).groupInstanceId).toBeUndefined();
    expect(resolveStreamsConfig({ ...base, groupInstanceId: 'pod-0' }).groupInstanceId).toBe('pod-0');
    expect(configError({ ...base, groupInstanceId: 'pod 0' }).message).toContain('"groupInstanceId" must be');
    expect(configError({ ...base, groupInstanceId: '' }).message).toContain('"groupInstanceId" must be');
  });

  it('takes standby replicas as an integer >= 0 and names the rule otherwise', () => {
    expect(resolveStreamsConfig({ ...base, numStandbyReplicas: 1 }).numStandbyReplicas).toBe(1);
    expect(resolveStreamsConfig(base).numStandbyReplicas).toBe(0);
    expect(configError({ ...base, numStandbyReplicas: -1 }).message).toMatch(
      /"numStandbyReplicas" must be an integer >= 0, got -1/,
    );
    expect(configError({ ...base, numStandbyReplicas: 1.5 }).message).toMatch(/numStandbyReplicas/);
  });

  it('takes the high-availability assignment keys with Kafka Streams’ defaults and lower bounds', () => {
    expect(resolveStreamsConfig(base)).toMatchObject({
      acceptableRecoveryLag: 10_000,
      maxWarmupReplicas: 2,
      probingRebalanceIntervalMs: 600_000,
    });
    expect(
      resolveStreamsConfig({
        ...base,
        acceptableRecoveryLag: 0,
        maxWarmupReplicas: 5,
        probingRebalanceIntervalMs: 60_000,
      }),
    ).toMatchObject({ acceptableRecoveryLag: 0, maxWarmupReplicas: 5, probingRebalanceIntervalMs: 60_000 });
    expect(configError({ ...base, maxWarmupReplicas: 0 }).message).toContain(
      '"maxWarmupReplicas" must be an integer >= 1, got 0',
    );
    expect(configError({ ...base, acceptableRecoveryLag: -1 }).message).toContain(
      '"acceptableRecoveryLag" must be a number of records >= 0, got -1',
    );
    expect(configError({ ...base, probingRebalanceIntervalMs: 1_000 }).message).toContain(
      '"probingRebalanceIntervalMs" must be a number of ms >= 60,000, got 1000',
    );
  });

  describe('exactly_once rejects each incompatible explicit setting, naming key, value and reason', () => {
    const eos = { ...base, processingGuarantee: 'exactly_once' as const };
    it.each([
      [
        'consumer.isolationLevel',
        { consumer: { isolationLevel: 'read_uncommitted' } },
        '"read_uncommitted"',
        /only committed/,
      ],
      ['producer.idempotent', { producer: { idempotent: false } }, 'false', /idempotent producer/],
      ['producer.acks', { producer: { acks: 1 } }, '1', /all in-sync replicas/],
      ['producer.maxInFlightRequests', { producer: { maxInFlightRequests: 6 } }, '6', /at most 5/],
      ['producer.retries', { producer: { retries: 0 } }, '0', /retried/],
      [
        'producer.transactionTimeoutMs',
        { producer: { transactionTimeoutMs: 50 }, commitIntervalMs: 100 },
        '50',
        /at least/,
      ],
    ])('%s', (key, override, value, reason) => {
      const err = configError({ ...eos, ...override });
      expect(err.message).toContain(`conflicts with ${key} = ${value}`);
      expect(err.message).toMatch(reason);
      const topology = new Topology().addSource('in', 'input').addSink('out', 'output', undefined, 'in');
      expect(() => new KafkaStreams(topology, { ...eos, ...override } as StreamsConfig)).toThrow(
        `conflicts with ${key} = ${value}`,
      );
      // The same explicit value is fine under at_least_once: nothing is overridden silently.
      expect(() => resolveStreamsConfig({ ...base, ...override } as StreamsConfig)).not.toThrow();
    });
  });
});

describe('metrics.recordingLevel', () => {
  it('is info unless set, and takes debug or off', () => {
    expect(resolveStreamsConfig(base).metricsRecordingLevel).toBe('info');
    expect(
      resolveStreamsConfig({ ...base, metrics: { recordingLevel: 'debug' } }).metricsRecordingLevel,
    ).toBe('debug');
    expect(resolveStreamsConfig({ ...base, metrics: { recordingLevel: 'off' } }).metricsRecordingLevel).toBe(
      'off',
    );
  });

  it('rejects another level or key with a message naming the choices', () => {
    const error = configError({ ...base, metrics: { recordingLevel: 'trace', sampleWindowMs: 1 } });
    expect(error.message).toContain(`"metrics.recordingLevel" must be 'info', 'debug'`);
    expect(error.message).toContain('unknown key "metrics.sampleWindowMs"');
  });
});
