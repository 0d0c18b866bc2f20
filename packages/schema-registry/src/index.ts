export { type AvroSerdeOptions, avroSerde, type RegistrySerde } from './avro-serde.ts';
export {
  type RegisteredSchema,
  type RegistryClientOptions,
  SchemaRegistryClient,
  SchemaRegistryError,
  type SchemaType,
} from './registry-client.ts';
export {
  recordNameStrategy,
  type SubjectNameStrategy,
  topicNameStrategy,
  topicRecordNameStrategy,
} from './subject-strategy.ts';
export { encodeWire, MAGIC_BYTE, schemaIdOf, WireFormatError } from './wire-format.ts';
