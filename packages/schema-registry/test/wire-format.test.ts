import { describe, expect, it } from 'vitest';
import { freePort } from '../../../scripts/test/free-port.ts';
import { avroSerde } from '../src/avro-serde.ts';
import { SchemaRegistryClient, SchemaRegistryError } from '../src/registry-client.ts';
import { recordNameStrategy, topicNameStrategy, topicRecordNameStrategy } from '../src/subject-strategy.ts';
import { encodeWire, schemaIdOf, WireFormatError } from '../src/wire-format.ts';

describe('the Confluent wire format', () => {
  it('is magic byte 0, the id as a big-endian int32, then the payload', () => {
    const bytes = encodeWire(0x01020304, Buffer.from('abc'));
    expect([...bytes]).toEqual([0, 1, 2, 3, 4, 0x61, 0x62, 0x63]);
    expect(schemaIdOf(bytes)).toBe(0x01020304);
  });

  it('rejects bytes not in the format with an error that says what to do', () => {
    expect(() => schemaIdOf(Buffer.from('{"a":1}'))).toThrow(WireFormatError);
    expect(() => schemaIdOf(Buffer.from('{"a":1}'))).toThrow(/first byte is 123.*Serdes.Json/);
    expect(() => schemaIdOf(Buffer.from([0, 1]))).toThrow(/only 2 bytes/);
    expect(() => encodeWire(-1, Buffer.alloc(0))).toThrow(/schema id/);
  });
});

describe('subject name strategies', () => {
  it('name subjects as the Confluent serializers do', () => {
    expect(topicNameStrategy('orders', false, 'com.acme.Order')).toBe('orders-value');
    expect(topicNameStrategy('orders', true, undefined)).toBe('orders-key');
    expect(recordNameStrategy('orders', false, 'com.acme.Order')).toBe('com.acme.Order');
    expect(topicRecordNameStrategy('orders', false, 'com.acme.Order')).toBe('orders-com.acme.Order');
    expect(() => recordNameStrategy('orders', false, undefined)).toThrow(/use topicNameStrategy/);
  });
});

describe('the registry client', () => {
  it('rejects a url without a scheme', () => {
    expect(() => new SchemaRegistryClient({ url: 'localhost:8081' })).toThrow(/http:\/\//);
  });

  it('gives up on a registry that is down after its bounded retries, saying so', async () => {
    const port = await freePort(); // nothing listens there
    const client = new SchemaRegistryClient({
      url: `http://127.0.0.1:${port}`,
      retries: 2,
      retryBackoffMs: 10,
    });
    const started = Date.now();
    const err = await client.schemaById(1).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SchemaRegistryError);
    expect((err as Error).message).toMatch(
      /did not answer GET \/schemas\/ids\/1 after 3 attempts.*is it running/,
    );
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe('avroSerde without a registry round trip', () => {
  const client = new SchemaRegistryClient({ url: 'http://127.0.0.1:1', retries: 0 });
  const serde = avroSerde({ registry: client, schema: { type: 'record', name: 'A', fields: [] } });

  it('refuses to serialize for a topic it was not initialized for', () => {
    expect(() => serde.serialize({}, 'out')).toThrow(/await serde.init\(\['out'\]\)/);
  });

  it('leaves a record not in the wire format to deserialize, which throws (the handler decides)', () => {
    expect(serde.prepare(Buffer.from('plain'))).toBeUndefined();
    expect(() => serde.deserialize(Buffer.from('plain'))).toThrow(WireFormatError);
  });
});
