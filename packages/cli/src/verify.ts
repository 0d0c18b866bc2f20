// verifyTopic: read a topic read_committed and check it; what `kstreams verify` runs.
import type { KafkaConfig } from 'kafkajs';
import { type CheckedRecord, checkRecords, type VerifyReport } from './check.ts';
import { isFile, readExpectedFile } from './expected.ts';
import { type RawRecord, readCommitted } from './read-topic.ts';
import { decodeValue, type Value, type ValueFormat } from './values.ts';

export interface VerifyOptions {
  brokers: string[] | string;
  topic: string;
  /** Per key, values must be 1..n with no repeat and no gap (an exactly_once count's output). */
  expectSequences?: boolean;
  /**
   * Per key, values must increase strictly (a count written through the record cache, Kafka
   * Streams' and kstreams' default). Unset: on when `against` holds only counts and
   * `expectSequences` is off, so that a record written again is named a duplicate.
   */
  expectIncreasing?: boolean;
  /** Expected final values: a map, a file path, or a topic whose last value per key is expected. */
  against?: Map<string, Value> | string;
  valueFormat?: ValueFormat;
  kafkaConfig?: Partial<KafkaConfig>;
  timeoutMs?: number;
  idleMs?: number;
  maxExamples?: number;
}

export const brokerList = (b: string[] | string) =>
  (Array.isArray(b) ? b : b.split(',')).map((s) => s.trim()).filter((s) => s.length > 0);

export function decodeRecords(raw: RawRecord[], format: ValueFormat = 'auto'): CheckedRecord[] {
  return raw.map((r) => {
    try {
      return { ...r, value: decodeValue(r.value, format) };
    } catch (e) {
      throw new Error(`${r.partition}@${r.offset} (key ${JSON.stringify(r.key)}): ${(e as Error).message}`);
    }
  });
}

export async function verifyTopic(options: VerifyOptions): Promise<VerifyReport> {
  const brokers = brokerList(options.brokers);
  if (brokers.length === 0) throw new Error('no brokers: pass --brokers host:port (or set KAFKA_BROKERS)');
  if (!options.expectSequences && !options.expectIncreasing && options.against === undefined)
    throw new Error(
      'nothing to check: pass --expect-sequences (every update written), --expect-increasing (written through the record cache), --against FILE|TOPIC, or one of the first two with --against',
    );
  const read = (topic: string) =>
    readCommitted({
      brokers,
      topic,
      kafkaConfig: options.kafkaConfig,
      timeoutMs: options.timeoutMs,
      idleMs: options.idleMs,
    }).then((raw) => decodeRecords(raw, options.valueFormat));
  let expected: Map<string, Value> | undefined;
  if (options.against instanceof Map) expected = options.against;
  else if (typeof options.against === 'string') {
    if (isFile(options.against)) expected = readExpectedFile(options.against);
    else {
      expected = new Map();
      for (const r of await read(options.against)) if (r.value !== null) expected.set(r.key, r.value);
    }
  }
  const records = await read(options.topic);
  const expectIncreasing =
    options.expectIncreasing ??
    (!options.expectSequences && expected !== undefined && [...expected.values()].every(isCount));
  return {
    topic: options.topic,
    ...checkRecords(records, {
      expectSequences: options.expectSequences,
      expectIncreasing,
      expected,
      maxExamples: options.maxExamples,
    }),
  };
}

const isCount = (v: Value) => typeof v === 'number' && Number.isInteger(v) && v >= 0;
