/**
 * Turns values of one type into bytes and back. The framework handles null: a null Kafka value
 * never reaches a serde, and a null key stays null. Structurally usable as the state store's
 * `StoreSerde<T>`.
 */
export interface Serde<T> {
  serialize(data: T, topic?: string): Buffer;
  deserialize(data: Buffer, topic?: string): T;
}

/** What `Serdes.Json(schema)` accepts: a zod schema, or anything else with `parse`. */
export interface Schema<T> {
  parse(input: unknown): T;
}

/** The value type a serde reads and writes. */
export type SerdeType<S> = S extends Serde<infer T> ? T : never;
