// ssl/sasl settings: clear ConfigErrors for a bad mechanism or a missing password, and no secret
// in any error message or printed form of the resolved config.
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { resolveStreamsConfig, type StreamsConfig } from '../../src/config/streams-config.ts';
import { ConfigError } from '../../src/errors.ts';

const SECRET = 'pa55-Known-Secret-42';
const base = { applicationId: 'app', brokers: '127.0.0.1:9092', logger: 'silent' } as const;
const resolve = (extra: Partial<StreamsConfig>) => resolveStreamsConfig({ ...base, ...extra });
const errorOf = (extra: Partial<StreamsConfig>) => {
  try {
    resolve(extra);
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a ConfigError');
};

describe('sasl and ssl settings', () => {
  it('passes scram-sha-512 and TLS options through to the client, secrets intact', () => {
    const c = resolve({
      sasl: { mechanism: 'SCRAM-SHA-512', username: 'app', password: SECRET },
      ssl: { ca: 'CA PEM', key: 'KEY PEM', rejectUnauthorized: true },
    });
    expect(c.kafkaClient.sasl).toMatchObject({
      mechanism: 'scram-sha-512',
      username: 'app',
      password: SECRET,
    });
    expect(c.kafkaClient.ssl).toMatchObject({ ca: 'CA PEM', key: 'KEY PEM' });
  });

  it('never prints the password or the private key through JSON or inspect', () => {
    const c = resolve({
      sasl: { mechanism: 'scram-sha-512', username: 'app', password: SECRET },
      ssl: { ca: 'CA PEM', key: SECRET },
    });
    for (const text of [
      JSON.stringify(c.kafkaClient),
      inspect(c.kafkaClient, { depth: 9 }),
      JSON.stringify({ c: c.kafkaClient }),
    ]) {
      expect(text).not.toContain(SECRET);
      expect(text).toContain('[redacted]');
      expect(text).toContain('app');
    }
  });

  it('refuses an unknown mechanism, naming the known ones', () => {
    const e = errorOf({ sasl: { mechanism: 'kerberos', username: 'u', password: SECRET } });
    expect(e).toBeInstanceOf(ConfigError);
    expect(e.message).toContain('"sasl.mechanism" must be one of');
    expect(e.message).toContain("'scram-sha-512'");
    expect(e.message).not.toContain(SECRET);
  });

  it('refuses a missing password or username, without echoing the settings', () => {
    const e = errorOf({ sasl: { mechanism: 'scram-sha-512', username: 'u' } });
    expect(e.message).toContain('"sasl.password" is required');
    const e2 = errorOf({ sasl: { mechanism: 'plain', password: SECRET } });
    expect(e2.message).toContain('"sasl.username" is required');
    expect(e2.message).not.toContain(SECRET);
  });

  it('refuses ssl and sasl of the wrong type', () => {
    expect(errorOf({ ssl: 'yes' }).message).toContain('"ssl" must be true, or an object');
    expect(errorOf({ sasl: SECRET }).message).toContain('"sasl" must be an object');
    expect(errorOf({ sasl: SECRET }).message).not.toContain(SECRET);
  });
});
