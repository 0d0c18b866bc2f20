// Runs differential scenarios through Kafka Streams' own TopologyTestDriver (Differential.java).
// The jars come from Maven Central through mvn, as the broker's do (scripts/kafka/broker.ts), and
// the compiled program is cached under .kstreams/differential/ (gitignored), keyed by a hash of
// its source, so that a run after the first costs one JVM start (well under a second of work).
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KAFKA_VERSION } from '../kafka/broker.ts';

const here = dirname(fileURLToPath(import.meta.url));
const source = join(here, 'Differential.java');
const cacheRoot = join(here, '..', '..', '.kstreams', 'differential');

/** One input record; keys and values are strings (or null) on both sides. */
export interface ScenarioInput {
  topic: string;
  key: string | null;
  value: string | null;
  timestamp: number;
}

export interface Scenario {
  name: string;
  /** A topology defined, under this name, in Differential.java and in the TypeScript scenarios. */
  topology: string;
  inputs: ScenarioInput[];
  /** Topics to read after the input, in this order; keys are strings, values strings or longs. */
  outputs: Array<{ topic: string; value: 'string' | 'long' }>;
}

export interface ScenarioOutput {
  topic: string;
  key: string | null;
  value: string | number | null;
  timestamp: number;
}

function has(command: string, arg: string): boolean {
  const result = spawnSync(command, [arg], { stdio: 'ignore' });
  return result.error === undefined && result.status === 0;
}

/** Whether java, javac and mvn are installed (they are on developer machines and in CI). */
export function javaToolsAvailable(): boolean {
  return has('java', '-version') && has('javac', '-version') && has('mvn', '-v');
}

function ensureLibs(): string {
  const libs = join(cacheRoot, `libs-${KAFKA_VERSION}`);
  if (existsSync(join(libs, `kafka-streams-test-utils-${KAFKA_VERSION}.jar`))) return libs;
  // Into a fresh directory first, so that an interrupted fetch never looks complete.
  const partial = `${libs}.${process.pid}.partial`;
  mkdirSync(partial, { recursive: true });
  execFileSync(
    'mvn',
    [
      '-q',
      '-B',
      '-f',
      join(here, 'pom.xml'),
      'dependency:copy-dependencies',
      `-Dkafka.version=${KAFKA_VERSION}`,
      `-DoutputDirectory=${partial}`,
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  settle(partial, libs);
  return libs;
}

function ensureClasses(libs: string): string {
  const hash = createHash('sha256').update(KAFKA_VERSION).update(readFileSync(source)).digest('hex');
  const classes = join(cacheRoot, `classes-${hash.slice(0, 16)}`);
  if (!existsSync(join(classes, 'Differential.class'))) {
    const partial = `${classes}.${process.pid}.partial`;
    rmSync(partial, { recursive: true, force: true });
    execFileSync('javac', ['-cp', join(libs, '*'), '-d', partial, source], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    settle(partial, classes);
  }
  // Builds of an older Differential.java are of no more use.
  for (const entry of readdirSync(cacheRoot)) {
    if (entry.startsWith('classes-') && join(cacheRoot, entry) !== classes && !entry.endsWith('.partial')) {
      rmSync(join(cacheRoot, entry), { recursive: true, force: true });
    }
  }
  return classes;
}

/** Moves a finished build into place, unless another run got there first (then its copy stays). */
function settle(partial: string, final: string): void {
  if (existsSync(final)) rmSync(partial, { recursive: true, force: true });
  else renameSync(partial, final);
}

/** Every scenario through Kafka Streams in one JVM: the output records per scenario name. */
export function runInKafkaStreams(scenarios: readonly Scenario[]): Record<string, ScenarioOutput[]> {
  mkdirSync(cacheRoot, { recursive: true });
  const libs = ensureLibs();
  const classes = ensureClasses(libs);
  const dir = mkdtempSync(join(tmpdir(), 'kstreams-differential-'));
  try {
    const file = join(dir, 'scenarios.json');
    writeFileSync(file, JSON.stringify(scenarios));
    const out = execFileSync('java', ['-cp', `${classes}:${join(libs, '*')}`, 'Differential', file], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      maxBuffer: 64 * 1024 * 1024,
    });
    return JSON.parse(out) as Record<string, ScenarioOutput[]>;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
