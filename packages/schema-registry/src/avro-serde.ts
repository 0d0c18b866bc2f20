// avroSerde: Avro records in the Confluent wire format through a Schema Registry. Deserializing
// needs the writer's schema for the record's id: `prepare` fetches it (the task awaits that only
// for an id not yet cached) and `deserialize` then runs synchronously, resolving the writer
// schema against the reader schema (schema evolution). Serializing needs this serde's schema id
// for the topic's subject: `init(topics)` registers or looks it up before the app starts.
import type { Serde } from '@kstreams/core';
import avro from 'avsc';
import { type SchemaRegistryClient, SchemaRegistryError } from './registry-client.ts';
import { type SubjectNameStrategy, topicNameStrategy } from './subject-strategy.ts';
import { encodeWire, payloadOf, schemaIdOf } from './wire-format.ts';

export interface AvroSerdeOptions {
  registry: SchemaRegistryClient;
  /**
   * The reader (and, for serializing, writer) schema, as Avro JSON. Without it, records are read
   * with their writer's schema and serializing needs `useLatestVersion` or `schemaId`.
   */
  schema?: object | string;
  /** For record keys (subject `<topic>-key` under the topic strategy). Default false. */
  isKey?: boolean;
  subjectNameStrategy?: SubjectNameStrategy;
  /** Register the schema when serializing (auto.register.schemas). Default true. */
  autoRegister?: boolean;
  /** Serialize with the subject's latest registered schema (use.latest.version). */
  useLatestVersion?: boolean;
  /** Serialize with this registered schema id (use.schema.id). */
  schemaId?: number;
}

export interface RegistrySerde<T> extends Serde<T> {
  prepare(data: Buffer, topic?: string): Promise<void> | undefined;
  /** Registers or looks up the writer schema for these topics' subjects; call before start(). */
  init(topics: string[]): Promise<void>;
}

export function avroSerde<T = unknown>(options: AvroSerdeOptions): RegistrySerde<T> {
  const { registry } = options;
  const isKey = options.isKey ?? false;
  const strategy = options.subjectNameStrategy ?? topicNameStrategy;
  const reader = options.schema === undefined ? undefined : avro.Type.forSchema(parseSchema(options.schema));
  const readerName = reader?.name;
  const writerSchemaText = options.schema === undefined ? undefined : JSON.stringify(reader!.schema());
  /** Per schema id: how to read its bytes (the writer type, resolved against the reader). */
  const readers = new Map<number, { read: (payload: Buffer) => unknown }>();
  const failures = new Map<number, unknown>();
  const inFlight = new Map<number, Promise<void>>();
  /** Per topic: the id and type records are written with. */
  const writers = new Map<string, { id: number; type: avro.Type }>();

  function readerFor(schemaText: string) {
    const writer = avro.Type.forSchema(JSON.parse(schemaText));
    if (reader === undefined || writer.equals(reader)) return { read: (p: Buffer) => writer.fromBuffer(p) };
    const resolver = reader.createResolver(writer);
    return { read: (p: Buffer) => reader.fromBuffer(p, resolver) };
  }

  function fetchSchema(id: number): Promise<void> {
    let pending = inFlight.get(id);
    if (pending === undefined) {
      pending = registry
        .schemaById(id)
        .then((s) => {
          failures.delete(id);
          readers.set(id, readerFor(s.schema));
        })
        .catch((err) => {
          failures.set(id, err);
        })
        .finally(() => inFlight.delete(id));
      inFlight.set(id, pending);
    }
    return pending;
  }

  async function resolveWriter(topic: string): Promise<{ id: number; type: avro.Type }> {
    const subject = strategy(topic, isKey, readerName);
    if (options.schemaId !== undefined) {
      const s = await registry.schemaById(options.schemaId);
      return { id: options.schemaId, type: avro.Type.forSchema(JSON.parse(s.schema)) };
    }
    if (options.useLatestVersion) {
      const s = await registry.latest(subject);
      return { id: s.id, type: avro.Type.forSchema(JSON.parse(s.schema)) };
    }
    if (writerSchemaText === undefined) {
      throw new Error('avroSerde needs a schema to serialize, or useLatestVersion / schemaId');
    }
    const id =
      options.autoRegister === false
        ? await registry.lookup(subject, writerSchemaText, 'AVRO')
        : await registry.register(subject, writerSchemaText, 'AVRO');
    return { id, type: reader! };
  }

  return {
    async init(topics) {
      for (const topic of topics) writers.set(topic, await resolveWriter(topic));
    },
    serialize(data, topic) {
      const writer = writers.get(topic ?? '');
      if (writer === undefined) {
        throw new Error(
          `avroSerde has no schema id for topic "${topic}": call \`await serde.init(['${topic}'])\` ` +
            'before starting the app (it registers or looks up the schema)',
        );
      }
      return encodeWire(writer.id, writer.type.toBuffer(data));
    },
    prepare(data) {
      const id = schemaIdOf(safeHeader(data));
      if (id < 0 || readers.has(id)) return undefined;
      return fetchSchema(id);
    },
    deserialize(data) {
      const id = schemaIdOf(data);
      const entry = readers.get(id);
      if (entry === undefined) {
        const failure = failures.get(id);
        if (failure instanceof SchemaRegistryError) throw failure;
        throw new SchemaRegistryError(
          `the writer schema ${id} of this record could not be fetched (${String(failure ?? 'not fetched')})`,
          undefined,
          undefined,
          { cause: failure },
        );
      }
      return entry.read(payloadOf(data)) as T;
    },
  };
}

/** prepare never throws: a record not in the wire format is left for deserialize to reject. */
function safeHeader(data: Buffer): Buffer {
  return data.length >= 5 && data[0] === 0 ? data : NOT_WIRE;
}
const NOT_WIRE = Buffer.from([0, 0xff, 0xff, 0xff, 0xff]); // id -1: nothing to fetch

function parseSchema(schema: object | string): avro.Schema {
  try {
    return (typeof schema === 'string' ? JSON.parse(schema) : schema) as avro.Schema;
  } catch (cause) {
    throw new Error('the Avro schema is not valid JSON', { cause });
  }
}
