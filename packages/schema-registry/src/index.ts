export { type AvroSerdeOptions, avroSerde } from './avro-serde.ts';
export {
  type JsonSchemaSerdeOptions,
  JsonSchemaValidationError,
  jsonSchemaSerde,
} from './json-schema-serde.ts';
export { type ProtobufSerdeOptions, protobufSerde } from './protobuf-serde.ts';
export {
  type RegisteredSchema,
  type RegistryClientOptions,
  SchemaRegistryClient,
  SchemaRegistryError,
  type SchemaType,
} from './registry-client.ts';
export type { RegistrySerde, RegistrySerdeOptions } from './registry-serde.ts';
export {
  recordNameStrategy,
  type SubjectNameStrategy,
  topicNameStrategy,
  topicRecordNameStrategy,
} from './subject-strategy.ts';
export { encodeWire, MAGIC_BYTE, schemaIdOf, WireFormatError } from './wire-format.ts';
