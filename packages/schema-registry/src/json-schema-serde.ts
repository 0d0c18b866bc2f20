// jsonSchemaSerde: JSON records in the Confluent wire format, validated with ajv against a JSON
// Schema (draft-07) registered in the Schema Registry (schemaType JSON), as Confluent's
// KafkaJsonSchemaSerializer writes them: the wire header, then the UTF-8 JSON text.
import { Ajv, type ValidateFunction } from 'ajv';
import { DecoderCache, type RegistrySerde, type RegistrySerdeOptions, WriterIds } from './registry-serde.ts';
import { topicNameStrategy } from './subject-strategy.ts';
import { encodeWire, payloadOf } from './wire-format.ts';

export interface JsonSchemaSerdeOptions extends RegistrySerdeOptions {
  /** The JSON Schema records are validated against when written and read (its `title` names the record). */
  schema?: object;
  /** Validate records read against the reader schema, or else the writer's (default true). */
  validateOnRead?: boolean;
}

export class JsonSchemaValidationError extends Error {
  override name = 'JsonSchemaValidationError';
}

export function jsonSchemaSerde<T = unknown>(options: JsonSchemaSerdeOptions): RegistrySerde<T> {
  const ajv = new Ajv({ allErrors: true, strict: false });
  const compile = (schema: object) => ajv.compile(schema);
  const own = options.schema === undefined ? undefined : compile(options.schema);
  const check = (validate: ValidateFunction, data: unknown, what: string) => {
    if (validate(data)) return;
    throw new JsonSchemaValidationError(
      `the ${what} does not match its JSON Schema: ${ajv.errorsText(validate.errors)}`,
    );
  };
  const decoders = new DecoderCache(options.registry, (schema) => own ?? compile(JSON.parse(schema)));
  const writers = new WriterIds(
    { ...options, subjectNameStrategy: options.subjectNameStrategy ?? topicNameStrategy },
    'JSON',
    own && {
      text: JSON.stringify(options.schema),
      recordName: (options.schema as { title?: string }).title,
      writer: own,
    },
    (schema) => compile(JSON.parse(schema)),
    'jsonSchemaSerde',
    (id, schema) => decoders.seed(id, schema),
  );
  return {
    init: (topics, options) => writers.init(topics, options),
    serialize(data, topic) {
      const { id, writer } = writers.get(topic);
      check(writer, data, 'record to write');
      return encodeWire(id, Buffer.from(JSON.stringify(data)));
    },
    prepare: (data) => decoders.prepare(data),
    deserialize(data) {
      const validate = decoders.get(data);
      const value = JSON.parse(payloadOf(data).toString('utf8')) as T;
      if (options.validateOnRead !== false) check(validate, value, 'record read');
      return value;
    },
  };
}
