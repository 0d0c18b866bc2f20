/**
 * Turns values of one type into bytes and back. The framework handles null: a null Kafka value
 * never reaches a serde, and a null key stays null. Structurally usable as the state store's
 * `StoreSerde<T>`.
 */
export interface Serde<T> {
  serialize(data: T, topic?: string): Buffer;
  deserialize(data: Buffer, topic?: string): T;
  /**
   * For serdes that need something fetched before `deserialize` can run (a Schema Registry serde
   * looking up the schema of an id it has not seen): returns a promise the task awaits before
   * deserializing this record, or undefined when nothing is missing. It never rejects: a failure
   * is left for `deserialize` to throw, so that the deserialization exception handler decides.
   * Serdes without it (all built-in ones) keep the synchronous path.
   */
  prepare?(data: Buffer, topic?: string): Promise<void> | undefined;
  /**
   * For serdes that must resolve something per topic before they can serialize (a Schema Registry
   * serde registering or looking up its schema id under the topic's subject). `KafkaStreams.start()`
   * awaits it, before any task runs, with every topic the app writes with this serde: its static
   * sink topics, repartition topics and store changelogs (`<applicationId>-<store>-changelog`, as
   * Kafka Streams names them, also for a store without logging). For the changelogs it passes
   * `{ readsBack: true }`: the store reads back what earlier runs wrote there, possibly with
   * older schema versions, without a chance to await a fetch.
   */
  init?(topics: string[], options?: { readsBack?: boolean }): Promise<void>;
}

/** What `Serdes.Json(schema)` accepts: a zod schema, or anything else with `parse`. */
export interface Schema<T> {
  parse(input: unknown): T;
}

/** The value type a serde reads and writes. */
export type SerdeType<S> = S extends Serde<infer T> ? T : never;
