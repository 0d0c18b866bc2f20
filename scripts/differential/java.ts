// Java programs run beside the project to check it against Kafka's own code (the differential
// tests) and to measure it against Kafka Streams (bench/word-count): the jars of Kafka Streams and
// kafka-clients come from Maven Central through mvn, as the broker's do
// (scripts/kafka/broker.ts), and each program is compiled once and cached under
// .kstreams/differential/ (gitignored), keyed by a hash of its source.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KAFKA_VERSION } from '../kafka/broker.ts';

const here = dirname(fileURLToPath(import.meta.url));
const cacheRoot = join(here, '..', '..', '.kstreams', 'differential');

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

function ensureClasses(source: string, libs: string): string {
  const program = basename(source, '.java');
  // Every Java file beside it may be compiled with it (javac's source path), so all count.
  const dir = dirname(source);
  const hash = createHash('sha256').update(KAFKA_VERSION).update(readFileSync(source));
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.java'))
    .sort()) {
    hash.update(file).update(readFileSync(join(dir, file)));
  }
  const digest = hash.digest('hex');
  const prefix = `classes-${program}-`;
  const classes = join(cacheRoot, `${prefix}${digest.slice(0, 16)}`);
  if (!existsSync(join(classes, `${program}.class`))) {
    const partial = `${classes}.${process.pid}.partial`;
    rmSync(partial, { recursive: true, force: true });
    execFileSync('javac', ['-cp', join(libs, '*'), '-sourcepath', dir, '-d', partial, source], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    settle(partial, classes);
  }
  // Builds of an older version of the same program are of no more use.
  for (const entry of readdirSync(cacheRoot)) {
    const stale = entry.startsWith(prefix) && join(cacheRoot, entry) !== classes;
    if (stale && !entry.endsWith('.partial'))
      rmSync(join(cacheRoot, entry), { recursive: true, force: true });
  }
  return classes;
}

/** Moves a finished build into place, unless another run got there first (then its copy stays). */
function settle(partial: string, final: string): void {
  if (existsSync(final)) rmSync(partial, { recursive: true, force: true });
  else renameSync(partial, final);
}

/**
 * Compiles (once) the Java program in `source` (its class is the file's name): the arguments to
 * `java` that run it, before the program's own. For callers that start the JVM themselves (the
 * word-count benchmark talks to its app while it runs).
 */
export function javaCommand(source: string): string[] {
  mkdirSync(cacheRoot, { recursive: true });
  const libs = ensureLibs();
  const classes = ensureClasses(source, libs);
  return ['-cp', `${classes}:${join(libs, '*')}`, basename(source, '.java')];
}

/** Compiles (once) and runs the Java program in `source`; its stdout. */
export function runJava(source: string, args: readonly string[]): string {
  return execFileSync('java', [...javaCommand(source), ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 64 * 1024 * 1024,
  });
}
