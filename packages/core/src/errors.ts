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
