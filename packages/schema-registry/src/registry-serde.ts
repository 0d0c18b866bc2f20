// What every registry serde shares, whatever the schema language: the per-id cache of decoders
// that `prepare` fills (one fetch per id, concurrent callers sharing it, failures remembered for
// `deserialize` to throw) and the per-topic writer ids that `init` resolves.
import type { Serde } from '@kstreams/core';
import { type SchemaRegistryClient, SchemaRegistryError, type SchemaType } from './registry-client.ts';
import type { SubjectNameStrategy } from './subject-strategy.ts';
import { schemaIdOf } from './wire-format.ts';

/** The options every registry serde takes (Confluent's serializer settings). */
export interface RegistrySerdeOptions {
  registry: SchemaRegistryClient;
  /** For record keys (subject `<topic>-key` under the topic strategy). Default false. */
  isKey?: boolean;
  /** Default: topicNameStrategy. */
  subjectNameStrategy?: SubjectNameStrategy;
  /** Register the schema when initializing for a topic (auto.register.schemas). Default true. */
  autoRegister?: boolean;
  /** Serialize with the subject's latest registered schema (use.latest.version). */
  useLatestVersion?: boolean;
  /** Serialize with this registered schema id (use.schema.id). */
  schemaId?: number;
}

export interface RegistrySerde<T> extends Serde<T> {
  prepare(data: Buffer, topic?: string): Promise<void> | undefined;
  /**
   * Registers or looks up the writer schema for these topics' subjects (`start()` does it for
   * the topics the app writes). `readsBack` (a store's changelog): also fetches every schema of
   * the subject, since the store reads back values earlier runs wrote, synchronously.
   */
  init(topics: string[], options?: { readsBack?: boolean }): Promise<void>;
}

/** Decoders per writer schema id, fetched by `prepare`, used synchronously by `get`. */
export class DecoderCache<D> {
  private readonly decoders = new Map<number, D>();
  private readonly failures = new Map<number, unknown>();
  private readonly inFlight = new Map<number, Promise<void>>();

  constructor(
    private readonly registry: SchemaRegistryClient,
    private readonly build: (schema: string) => D,
  ) {}

  /** Never throws: a record not in the wire format is left for `get` to reject. */
  prepare(data: Buffer): Promise<void> | undefined {
    if (data.length < 5 || data[0] !== 0) return undefined;
    const id = data.readInt32BE(1);
    if (this.decoders.has(id)) return undefined;
    let pending = this.inFlight.get(id);
    if (pending === undefined) {
      pending = this.registry
        .schemaById(id)
        .then((s) => {
          this.failures.delete(id);
          this.decoders.set(id, this.build(s.schema));
        })
        .catch((err) => {
          this.failures.set(id, err);
        })
        .finally(() => this.inFlight.delete(id));
      this.inFlight.set(id, pending);
    }
    return pending;
  }

  /**
   * A schema known without a fetch: the serde's own, once `init` has its id. A store's values are
   * read back with it (they carry the id this serde wrote them with), synchronously.
   */
  seed(id: number, schema: string): void {
    if (this.decoders.has(id)) return;
    try {
      this.decoders.set(id, this.build(schema));
    } catch (err) {
      // An older version this serde cannot read (not resolvable against its schema): reading a
      // record with it fails then, with this reason.
      this.failures.set(id, err);
    }
  }

  get(data: Buffer): D {
    const id = schemaIdOf(data);
    const decoder = this.decoders.get(id);
    if (decoder !== undefined) return decoder;
    const failure = this.failures.get(id);
    if (failure instanceof SchemaRegistryError) throw failure;
    throw new SchemaRegistryError(
      failure === undefined
        ? `the writer schema ${id} of this record was not fetched: deserialize() ran without an awaited ` +
            'prepare(). kstreams awaits it for sources without a timestamp extractor and for store ' +
            'changelogs it restores, and fetches the versions of a changelog subject at start; a ' +
            'source with an extractor or a global table does not yet: drop the extractor, or use ' +
            'another serde for the global table (see docs/schema-registry.md)'
        : `the writer schema ${id} of this record could not be fetched (${String(failure)})`,
      undefined,
      undefined,
      { cause: failure },
    );
  }
}

/** The schema id (and schema text) a topic's records are written with, resolved by `init`. */
export class WriterIds<W> {
  private readonly writers = new Map<string, { id: number; writer: W }>();

  constructor(
    private readonly options: RegistrySerdeOptions,
    private readonly schemaType: SchemaType,
    /** This serde's own schema, as registered text, and its record name; undefined: none given. */
    private readonly own: { text: string; recordName: string | undefined; writer: W } | undefined,
    private readonly build: (schema: string) => W,
    private readonly serdeName: string,
    /** Told each writer schema resolved, so that records written with it read back without a fetch. */
    private readonly resolved: (id: number, schema: string) => void,
  ) {}

  async init(topics: string[], options?: { readsBack?: boolean }): Promise<void> {
    for (const topic of topics) {
      this.writers.set(topic, await this.resolve(topic));
      if (options?.readsBack === true && this.options.schemaId === undefined) {
        const subject = this.options.subjectNameStrategy!(
          topic,
          this.options.isKey ?? false,
          this.own?.recordName,
        );
        for (const s of await this.options.registry.allVersions(subject)) this.resolved(s.id, s.schema);
      }
    }
  }

  get(topic: string | undefined): { id: number; writer: W } {
    const found = this.writers.get(topic ?? '');
    if (found !== undefined) return found;
    throw new Error(
      `${this.serdeName} has no schema id for topic "${topic}": call \`await serde.init(['${topic}'])\` ` +
        'before starting the app (it registers or looks up the schema)',
    );
  }

  private async resolve(topic: string): Promise<{ id: number; writer: W }> {
    const { registry } = this.options;
    const strategy = this.options.subjectNameStrategy;
    const isKey = this.options.isKey ?? false;
    if (this.options.schemaId !== undefined) {
      const s = await registry.schemaById(this.options.schemaId);
      this.resolved(s.id, s.schema);
      return { id: this.options.schemaId, writer: this.build(s.schema) };
    }
    const subject = strategy!(topic, isKey, this.own?.recordName);
    if (this.options.useLatestVersion) {
      const s = await registry.latest(subject);
      this.resolved(s.id, s.schema);
      return { id: s.id, writer: this.build(s.schema) };
    }
    if (this.own === undefined) {
      throw new Error(`${this.serdeName} needs a schema to serialize, or useLatestVersion / schemaId`);
    }
    const id =
      this.options.autoRegister === false
        ? await registry.lookup(subject, this.own.text, this.schemaType)
        : await registry.register(subject, this.own.text, this.schemaType);
    this.resolved(id, this.own.text);
    return { id, writer: this.own.writer };
  }
}
