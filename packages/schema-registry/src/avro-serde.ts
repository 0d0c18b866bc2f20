// avroSerde: Avro records in the Confluent wire format through a Schema Registry. Deserializing
// needs the writer's schema for the record's id: `prepare` fetches it (the task awaits that only
// for an id not yet cached) and `deserialize` then runs synchronously, resolving the writer
// schema against the reader schema (schema evolution). Serializing needs this serde's schema id
// for the topic's subject: `init(topics)` registers or looks it up before the app starts.
import avro from 'avsc';
import { DecoderCache, type RegistrySerde, type RegistrySerdeOptions, WriterIds } from './registry-serde.ts';
import { topicNameStrategy } from './subject-strategy.ts';
import { encodeWire, payloadOf } from './wire-format.ts';

export interface AvroSerdeOptions extends RegistrySerdeOptions {
  /**
   * The reader (and, for serializing, writer) schema, as Avro JSON. Without it, records are read
   * with their writer's schema and serializing needs `useLatestVersion` or `schemaId`.
   */
  schema?: object | string;
}

export function avroSerde<T = unknown>(options: AvroSerdeOptions): RegistrySerde<T> {
  const reader = options.schema === undefined ? undefined : avro.Type.forSchema(parseSchema(options.schema));
  const typeOf = (schema: string) => avro.Type.forSchema(JSON.parse(schema));
  const decoders = new DecoderCache(options.registry, (schema) => {
    const writer = typeOf(schema);
    if (reader === undefined || writer.equals(reader)) return (p: Buffer) => writer.fromBuffer(p);
    const resolver = reader.createResolver(writer);
    return (p: Buffer) => reader.fromBuffer(p, resolver);
  });
  const writers = new WriterIds(
    { ...options, subjectNameStrategy: options.subjectNameStrategy ?? topicNameStrategy },
    'AVRO',
    reader && { text: JSON.stringify(reader.schema()), recordName: reader.name, writer: reader },
    typeOf,
    'avroSerde',
    (id, schema) => decoders.seed(id, schema),
  );
  return {
    init: (topics, options) => writers.init(topics, options),
    serialize(data, topic) {
      const { id, writer } = writers.get(topic);
      return encodeWire(id, writer.toBuffer(data));
    },
    prepare: (data) => decoders.prepare(data),
    deserialize: (data) => decoders.get(data)(payloadOf(data)) as T,
  };
}

function parseSchema(schema: object | string): avro.Schema {
  try {
    return (typeof schema === 'string' ? JSON.parse(schema) : schema) as avro.Schema;
  } catch (cause) {
    throw new Error('the Avro schema is not valid JSON', { cause });
  }
}
