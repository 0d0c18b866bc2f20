// A small client for the Confluent Schema Registry REST API (also served by Apicurio's ccompat
// API and Karapace): fetch with a timeout per request and bounded retries of transient failures,
// basic auth, and caches of ids and schemas (a schema under an id never changes, so they are kept).

export type SchemaType = 'AVRO' | 'PROTOBUF' | 'JSON';

export interface RegistryClientOptions {
  /** Base URL of the Confluent API, e.g. http://localhost:8081 or <apicurio>/apis/ccompat/v7 */
  url: string;
  /** Basic auth (Confluent's basic.auth.user.info). */
  basicAuth?: { username: string; password: string };
  /** Per request (default 10 s). */
  timeoutMs?: number;
  /** Retries of a request that failed on the network, timed out or got a 5xx (default 3). */
  retries?: number;
  /** First backoff, doubled per retry (default 200 ms). */
  retryBackoffMs?: number;
  /** A fetch to use instead of the global one (a dispatcher with TLS options, say). */
  fetch?: typeof fetch;
}

export interface RegisteredSchema {
  id: number;
  schema: string;
  schemaType: SchemaType;
  subject?: string;
  version?: number;
}

/** The registry answered with an error (an unknown id, an incompatible schema, ...). */
export class SchemaRegistryError extends Error {
  override name = 'SchemaRegistryError';
  constructor(
    message: string,
    readonly status: number | undefined,
    readonly errorCode: number | undefined,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

const CONTENT_TYPE = 'application/vnd.schemaregistry.v1+json';

export class SchemaRegistryClient {
  private readonly byId = new Map<number, RegisteredSchema>();
  private readonly idBySubjectSchema = new Map<string, number>();
  private readonly url: string;
  private readonly headers: Record<string, string>;
  private readonly doFetch: typeof fetch;

  constructor(private readonly options: RegistryClientOptions) {
    if (!/^https?:\/\//.test(options.url)) {
      throw new Error(`the registry url must start with http:// or https://, got "${options.url}"`);
    }
    this.url = options.url.replace(/\/+$/, '');
    this.headers = { Accept: CONTENT_TYPE, 'Content-Type': CONTENT_TYPE };
    if (options.basicAuth) {
      const { username, password } = options.basicAuth;
      this.headers.Authorization = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
    }
    this.doFetch = options.fetch ?? fetch;
  }

  /** A schema already fetched, without I/O (the synchronous path of deserialization). */
  cached(id: number): RegisteredSchema | undefined {
    return this.byId.get(id);
  }

  async schemaById(id: number): Promise<RegisteredSchema> {
    const hit = this.byId.get(id);
    if (hit) return hit;
    const body = (await this.request(
      'GET',
      `/schemas/ids/${id}`,
      undefined,
      () =>
        `schema id ${id} is not in the registry at ${this.url}: was the record written against another registry, or was the schema deleted?`,
    )) as { schema: string; schemaType?: SchemaType };
    const schema: RegisteredSchema = { id, schema: body.schema, schemaType: body.schemaType ?? 'AVRO' };
    this.byId.set(id, schema);
    return schema;
  }

  /** Registers a schema under a subject (or finds it there): its id. */
  async register(subject: string, schema: string, schemaType: SchemaType): Promise<number> {
    const key = `${subject}\u0000${schema}`;
    const hit = this.idBySubjectSchema.get(key);
    if (hit !== undefined) return hit;
    const body = (await this.request(
      'POST',
      `/subjects/${encodeURIComponent(subject)}/versions`,
      { schema, ...(schemaType === 'AVRO' ? {} : { schemaType }) },
      (status) =>
        status === 409 || status === 422
          ? `the registry refused the schema for subject "${subject}" as incompatible with its ` +
            'earlier versions: change the schema compatibly (add fields with defaults), or change ' +
            "the subject's compatibility level"
          : undefined,
    )) as { id: number };
    this.idBySubjectSchema.set(key, body.id);
    this.byId.set(body.id, { id: body.id, schema, schemaType, subject });
    return body.id;
  }

  /** Looks a schema up under a subject without registering it (auto-registration off). */
  async lookup(subject: string, schema: string, schemaType: SchemaType): Promise<number> {
    const key = `${subject}\u0000${schema}`;
    const hit = this.idBySubjectSchema.get(key);
    if (hit !== undefined) return hit;
    const body = (await this.request(
      'POST',
      `/subjects/${encodeURIComponent(subject)}`,
      { schema, ...(schemaType === 'AVRO' ? {} : { schemaType }) },
      (status) =>
        status === 404
          ? `the schema is not registered under subject "${subject}" and auto-registration is off: ` +
            'register it (CI, the registry UI), or set autoRegister: true'
          : undefined,
    )) as { id: number };
    this.idBySubjectSchema.set(key, body.id);
    this.byId.set(body.id, { id: body.id, schema, schemaType, subject });
    return body.id;
  }

  /** The subject's latest version (useLatestVersion). */
  async latest(subject: string): Promise<RegisteredSchema> {
    const body = (await this.request(
      'GET',
      `/subjects/${encodeURIComponent(subject)}/versions/latest`,
      undefined,
      (status) =>
        status === 404 ? `subject "${subject}" has no schema in the registry: register one first` : undefined,
    )) as { id: number; schema: string; schemaType?: SchemaType; version: number };
    const schema: RegisteredSchema = {
      id: body.id,
      schema: body.schema,
      schemaType: body.schemaType ?? 'AVRO',
      subject,
      version: body.version,
    };
    this.byId.set(schema.id, schema);
    return schema;
  }

  /**
   * Every schema registered under the subject, oldest first (none if there is no such subject):
   * what a store may hold values of, written by earlier versions of the app.
   */
  async allVersions(subject: string): Promise<RegisteredSchema[]> {
    const path = `/subjects/${encodeURIComponent(subject)}/versions`;
    let versions: number[];
    try {
      versions = (await this.request('GET', path, undefined, () => undefined)) as number[];
    } catch (err) {
      if (err instanceof SchemaRegistryError && err.status === 404) return [];
      throw err;
    }
    const schemas: RegisteredSchema[] = [];
    for (const version of versions) {
      const body = (await this.request('GET', `${path}/${version}`, undefined, () => undefined)) as {
        id: number;
        schema: string;
        schemaType?: SchemaType;
      };
      const schema = {
        id: body.id,
        schema: body.schema,
        schemaType: body.schemaType ?? 'AVRO',
        subject,
        version,
      };
      this.byId.set(schema.id, schema);
      schemas.push(schema);
    }
    return schemas;
  }

  private async request(
    method: string,
    path: string,
    body: unknown,
    explain: (status: number) => string | undefined,
  ): Promise<unknown> {
    const retries = this.options.retries ?? 3;
    const backoff = this.options.retryBackoffMs ?? 200;
    let lastError: unknown;
    for (let attempt = 0; attempt <= retries; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, backoff * 2 ** (attempt - 1)));
      let res: Response;
      try {
        res = await this.doFetch(`${this.url}${path}`, {
          method,
          headers: this.headers,
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(this.options.timeoutMs ?? 10_000),
        });
      } catch (err) {
        lastError = err; // down, refused, timed out: transient, retried
        continue;
      }
      const text = await res.text();
      if (res.ok) return JSON.parse(text);
      const parsed = safeJson(text) as { message?: string; error_code?: number } | undefined;
      if (res.status >= 500) {
        lastError = new Error(`HTTP ${res.status}: ${parsed?.message ?? text}`);
        continue;
      }
      const why = explain(res.status) ?? `the registry answered HTTP ${res.status} to ${method} ${path}`;
      throw new SchemaRegistryError(
        `${why} (registry: ${parsed?.message ?? text})`,
        res.status,
        parsed?.error_code,
      );
    }
    throw new SchemaRegistryError(
      `the Schema Registry at ${this.url} did not answer ${method} ${path} after ${retries + 1} ` +
        `attempts (${String(lastError)}): is it running and is the url right?`,
      undefined,
      undefined,
      { cause: lastError },
    );
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
