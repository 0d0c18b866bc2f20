// Runs differential scenarios through Kafka Streams' own TopologyTestDriver (Differential.java,
// compiled and run by java.ts), so that a run after the first costs one JVM start.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runJava } from './java.ts';

export { javaToolsAvailable } from './java.ts';

const source = join(dirname(fileURLToPath(import.meta.url)), 'Differential.java');

/** One input record; keys and values are strings (or null) on both sides. */
export interface ScenarioInput {
  topic: string;
  key: string | null;
  value: string | null;
  timestamp: number;
  /** Record headers, as UTF-8 text. */
  headers?: Record<string, string>;
}

export interface Scenario {
  name: string;
  /** A topology defined, under this name, in Differential.java and in the TypeScript scenarios. */
  topology: string;
  inputs: ScenarioInput[];
  /**
   * Topics to read after the input, in this order; keys are strings, values strings, longs or
   * (`hex`) their bytes in hex, for internal topics' wire formats.
   */
  outputs: Array<{
    topic: string;
    value: 'string' | 'long' | 'hex';
    /** False: the records' timestamps are not compared (a plain store's changelog: kstreams stamps it with the commit's time). */
    timestamps?: boolean;
    /** Compare the records' headers too (as UTF-8 text; a repeated key: its last value). */
    headers?: boolean;
  }>;
  /** Compare `topology.describe()` too: the text comes first, as a record of topic 'describe()'. */
  describe?: boolean;
  /** `statestore.cache.max.bytes` on both sides; default 0 (no record cache). */
  cacheMaxBytes?: number;
  /** Kafka Streams' `dsl.store.format` (KIP-1285) on both sides; default: not set ('DEFAULT'). */
  dslStoreFormat?: 'DEFAULT' | 'HEADERS';
  /** Stores whose format ('HEADERS' or 'DEFAULT') each side reports, as records of topic 'store-format()'. */
  storeFormats?: string[];
}

export interface ScenarioOutput {
  topic: string;
  key: string | null;
  value: string | number | null;
  timestamp: number;
  headers?: Record<string, string | null>;
}

/** Every scenario through Kafka Streams in one JVM: the output records per scenario name. */
export function runInKafkaStreams(scenarios: readonly Scenario[]): Record<string, ScenarioOutput[]> {
  const dir = mkdtempSync(join(tmpdir(), 'kstreams-differential-'));
  try {
    const file = join(dir, 'scenarios.json');
    writeFileSync(file, JSON.stringify(scenarios));
    const out = runJava(source, [file]);
    return JSON.parse(out) as Record<string, ScenarioOutput[]>;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
