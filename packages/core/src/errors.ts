/** Base class of every error kstreams raises on purpose; `cause` keeps the underlying failure. */
export class StreamsError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Incompatible or invalid settings. The message names the setting and what to change. */
export class ConfigError extends StreamsError {}

/** A topology that cannot run: bad graph, duplicate names, unknown parents or stores. */
export class TopologyError extends StreamsError {}

/** A built-in serde refused a value (wrong type, out of range, wrong byte length). */
export class SerdeError extends StreamsError {}

/** A call the app's current state does not allow (Java's IllegalStateException). */
export class IllegalStateError extends StreamsError {}

/**
 * Another live process holds the application's state directory (Kafka Streams refuses the same
 * way): two instances sharing one would write the same stores and checkpoints.
 */
export class StateDirectoryLockedError extends StreamsError {
  constructor(
    readonly directory: string,
    /** The holder's pid (the holder may be this process: another KafkaStreams of the same app). */
    readonly ownerPid: number,
    ownerDescription: string,
  ) {
    super(
      'Unable to initialize state, this can happen if multiple instances of Kafka Streams are running ' +
        `in the same state directory: ${directory} is locked by ${ownerDescription}. Stop that ` +
        'instance, or give this one its own "stateDir".',
    );
  }
}

/** A Kafka record whose key or value the source node's serde could not read. */
export class DeserializationError extends StreamsError {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  /** Which half of the record failed. */
  readonly part: 'key' | 'value';

  constructor(
    location: { topic: string; partition: number; offset: number; part: 'key' | 'value' },
    options?: { cause?: unknown },
  ) {
    const reason = options?.cause instanceof Error ? `: ${options.cause.message}` : '';
    super(
      `Cannot deserialize the ${location.part} of the record at ${location.topic}-${location.partition} ` +
        `offset ${location.offset}${reason}. Check the ${location.part} serde of the source for topic ` +
        `'${location.topic}', or configure a deserialization exception handler that returns 'continue'.`,
      options,
    );
    this.topic = location.topic;
    this.partition = location.partition;
    this.offset = location.offset;
    this.part = location.part;
  }
}

/**
 * A source's TimestampExtractor failed for a record (Kafka Streams' StreamsException from the
 * extractor): a negative timestamp under FailOnInvalidTimestamp, an unknown partition time under
 * UsePartitionTimeOnInvalidTimestamp, or the extractor threw. Fatal, as in Kafka Streams: the same
 * record would fail again.
 */
export class TimestampExtractorError extends StreamsError {}

/** A sink node could not serialize an outgoing record. */
export class SerializationError extends StreamsError {
  readonly topic: string;
  readonly nodeName: string;
  readonly part: 'key' | 'value';

  constructor(
    location: { topic: string; nodeName: string; part: 'key' | 'value' },
    options?: { cause?: unknown },
  ) {
    const reason = options?.cause instanceof Error ? `: ${options.cause.message}` : '';
    super(
      `Sink ${location.nodeName} cannot serialize the ${location.part} for topic '${location.topic}'${reason}. ` +
        `Pass a matching ${location.part === 'key' ? 'keySerde' : 'valueSerde'} to to()/addSink().`,
      options,
    );
    this.topic = location.topic;
    this.nodeName = location.nodeName;
    this.part = location.part;
  }
}

/** A processor threw while processing a record or punctuating; names the task and node. */
export class ProcessingError extends StreamsError {
  readonly taskId: string;
  readonly nodeName: string;

  constructor(taskId: string, nodeName: string, detail: string, options?: { cause?: unknown }) {
    const reason = options?.cause instanceof Error ? `: ${options.cause.message}` : '';
    super(`Processor ${nodeName} of task ${taskId} failed ${detail}${reason}`, options);
    this.taskId = taskId;
    this.nodeName = nodeName;
  }
}

/** An asynchronous processor's call did not finish within its `timeoutMs`. */
export class AsyncTimeoutError extends StreamsError {
  constructor(nodeName: string, timeoutMs: number, where: string) {
    super(
      `Async processor ${nodeName} did not finish within ${timeoutMs} ms ${where}: raise its timeoutMs, ` +
        `or configure a processing exception handler that returns 'continue' to skip such records`,
    );
  }
}

/**
 * A sink's record is larger than `producer.maxRequestSize` (Java's RecordTooLargeException): the
 * broker would refuse it however often it is sent.
 */
export class RecordTooLargeError extends StreamsError {
  constructor(
    readonly topic: string,
    readonly nodeName: string,
    readonly sizeBytes: number,
    readonly maxBytes: number,
  ) {
    super(
      `Sink ${nodeName}: a record for topic '${topic}' is ${sizeBytes} bytes serialized, more than ` +
        `producer.maxRequestSize (${maxBytes}); the broker would refuse it. Make the record smaller, or ` +
        `raise producer.maxRequestSize together with the broker's message.max.bytes (and the topic's max.message.bytes).`,
    );
  }
}

/** What a broker error code asks the user to change, for the codes a send may end with. */
const SEND_HINTS: { readonly [code: string]: string } = {
  MESSAGE_TOO_LARGE:
    "raise the topic's max.message.bytes (or the broker's message.max.bytes), or make the record smaller",
  RECORD_LIST_TOO_LARGE:
    "raise the topic's max.message.bytes (or the broker's message.max.bytes), or make the record smaller",
  NOT_ENOUGH_REPLICAS: "bring the topic's replicas back, or lower its min.insync.replicas",
  REQUEST_TIMED_OUT: 'check that the brokers are up and reachable',
};

/**
 * Kafka's answer to one record's send (Java's exception in the producer callback), as the
 * production exception handler sees it: `code` is the broker's error code when it gave one,
 * `retriable` whether sending again may succeed (a timeout, a broker away), as Kafka's
 * RetriableException marks it.
 */
export class RecordSendError extends StreamsError {
  constructor(
    readonly topic: string,
    readonly partition: number | undefined,
    readonly code: string | undefined,
    readonly retriable: boolean,
    options: { cause: unknown },
  ) {
    const reason = options.cause instanceof Error ? options.cause.message : String(options.cause);
    const hint = code === undefined ? undefined : SEND_HINTS[code];
    super(
      `Sending a record to topic '${topic}'${partition === undefined ? '' : ` partition ${partition}`} failed` +
        `${code === undefined ? '' : ` (${code})`}: ${reason}${hint === undefined ? '' : `; ${hint}`}`,
      options,
    );
  }
}

/**
 * A send failed and the thread stops (Java's StreamsException from the RecordCollector): the
 * production exception handler answered 'fail' (or 'retry' for an error that is not retriable), or
 * the error is one Kafka Streams never hands to the handler (an invalid topic, UNKNOWN_SERVER_ERROR).
 */
export class ProductionError extends StreamsError {
  constructor(
    readonly taskId: string,
    detail: string,
    options: { cause: unknown },
  ) {
    const reason = options.cause instanceof Error ? options.cause.message : String(options.cause);
    super(`Task ${taskId}: ${reason}. ${detail}`, options);
  }
}

const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'EAI_AGAIN',
]);

/**
 * No broker of the `brokers` list answered (refused, unknown host, timed out). `from` recognises
 * the client's connection errors under its retry wrappers.
 */
export class BrokerUnreachableError extends StreamsError {
  constructor(
    readonly brokers: readonly string[],
    reason: string,
    options?: { cause?: unknown },
  ) {
    super(
      `No Kafka broker answered at ${brokers.join(',')} (${reason}). Start Kafka there, or set the "brokers" setting to your cluster's addresses.`,
      options,
    );
  }

  static from(error: unknown, brokers: readonly string[]): BrokerUnreachableError | undefined {
    for (
      let e = error as ErrorLike | undefined;
      e;
      e = (e.originalError ?? e.cause) as ErrorLike | undefined
    ) {
      if (e instanceof BrokerUnreachableError) return e;
      const connectionError =
        e.name === 'KafkaJSConnectionError' ||
        (e.code !== undefined && UNREACHABLE_CODES.has(e.code)) ||
        /Connection timeout/i.test(e.message ?? '');
      if (connectionError)
        return new BrokerUnreachableError(brokers, e.message ?? String(e), { cause: error });
    }
    return undefined;
  }
}

/** Node's codes for a broker certificate the client does not trust or that does not match. */
const TLS_CODES = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_HAS_EXPIRED',
]);

/**
 * OpenSSL's codes for a TLS alert from a broker that wants a client certificate (mutual TLS) and
 * got none, or one it does not trust: TLS 1.3's certificate_required, TLS 1.2's bad_certificate,
 * and Java's answer to an unknown CA (unknown_ca, certificate_unknown).
 */
const CLIENT_CERT_CODES = new Set([
  'ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED',
  'ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE',
  'ERR_SSL_TLSV1_ALERT_UNKNOWN_CA',
  'ERR_SSL_SSLV3_ALERT_CERTIFICATE_UNKNOWN',
]);
const CLIENT_CERT_ALERT = /alert (certificate required|bad certificate|unknown ca|certificate unknown)/i;

/**
 * The brokers answered but the client could not authenticate (Java's SaslAuthenticationException
 * and SslAuthenticationException): SASL credentials refused, or a broker certificate not trusted.
 * Says which setting to change; never shows a credential.
 */
export class AuthenticationError extends StreamsError {
  static from(
    error: unknown,
    brokers: readonly string[],
    sasl: { mechanism?: unknown; username?: unknown } | undefined,
    /** What the user sets, in the caller's terms (the CLI names its flags and files). */
    settings: { credentials: string; ca: string; cert?: string } = {
      credentials: '"sasl.username", "sasl.password" and "sasl.mechanism"',
      ca: '"ssl.ca"',
    },
  ): AuthenticationError | undefined {
    const cert = settings.cert ?? '"ssl.cert" and "ssl.key"';
    for (
      let e = error as ErrorLike | undefined;
      e;
      e = (e.originalError ?? e.cause) as ErrorLike | undefined
    ) {
      if (e instanceof AuthenticationError) return e;
      if (e.name === 'KafkaJSSASLAuthenticationError') {
        const who = typeof sasl?.username === 'string' ? `user '${sasl.username}'` : 'the SASL user';
        return new AuthenticationError(
          `The brokers at ${brokers.join(',')} refused ${who} (SASL ${String(sasl?.mechanism ?? '')}): ${e.message}. ` +
            `Check ${settings.credentials} against the user on the cluster.`,
          { cause: error },
        );
      }
      if ((e.code !== undefined && CLIENT_CERT_CODES.has(e.code)) || CLIENT_CERT_ALERT.test(e.message ?? ''))
        return new AuthenticationError(
          `The brokers at ${brokers.join(',')} require a client certificate (mutual TLS) and refused the ` +
            `connection: ${e.code ?? ''} (${e.message}). Set ${cert} to a client certificate signed by a CA the ` +
            'brokers trust (their ssl.truststore) and its private key.',
          { cause: error },
        );
      if (e.code !== undefined && TLS_CODES.has(e.code))
        return new AuthenticationError(
          `TLS with the brokers at ${brokers.join(',')} failed: ${e.code} (${e.message}). Set ${settings.ca} to the ` +
            "certificate of the CA that signed the brokers' certificates, and connect by a name or address the certificates list.",
          { cause: error },
        );
    }
    return undefined;
  }
}

interface ErrorLike {
  name?: string;
  code?: string;
  message?: string;
  cause?: unknown;
  originalError?: unknown;
}

/** The kinds of Kafka resources an ACL names (kafka-acls' spelling). */
export type AclResourceType = 'Topic' | 'Group' | 'TransactionalId' | 'Cluster';

/**
 * The broker refused the app's user an operation (Java's TopicAuthorizationException and
 * siblings). Not retried: the ACLs must change. The message names the principal, the operation,
 * the resource and the ACL that grants it; never a credential.
 */
export class AuthorizationError extends StreamsError {
  /** `User:<name>`, as the broker's ACLs name the app's client. */
  readonly principal: string;
  /** kafka-acls' operation name: Read, Write, Create, Describe, IdempotentWrite. */
  readonly operation: string;
  readonly resourceType: AclResourceType;
  readonly resourceName: string;
  /** The broker's error code, e.g. TRANSACTIONAL_ID_AUTHORIZATION_FAILED. */
  readonly code: string;

  constructor(details: {
    principal: string;
    operation: string;
    resourceType: AclResourceType;
    resourceName: string;
    code: string;
    fix: string;
    cause?: unknown;
  }) {
    super(
      `${details.principal} is not authorized to ${details.operation} ${details.resourceType} '${details.resourceName}' ` +
        `(${details.code}). To fix, ${details.fix}`,
      { cause: details.cause },
    );
    this.principal = details.principal;
    this.operation = details.operation;
    this.resourceType = details.resourceType;
    this.resourceName = details.resourceName;
    this.code = details.code;
  }
}
