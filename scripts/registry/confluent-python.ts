// Confluent's own Python client (confluent-kafka, with its Schema Registry serdes) as the other
// side of kstreams' Protobuf and JSON Schema interop tests: installed once from PyPI into a
// virtualenv in the cache, then run as `python/confluent_serdes.py` to encode or decode records.
// Chosen because the JavaScript clients reached here do not write Confluent's Protobuf message
// indexes (@kafkajs/confluent-schema-registry 3.9.0), and Apicurio's Java serdes write their own
// framing (docs/decisions.md).
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CONFLUENT_KAFKA_VERSION = '2.16.1';
const PROTOBUF_VERSION = '7.36.2';
const here = dirname(fileURLToPath(import.meta.url));

function venvHome(env: NodeJS.ProcessEnv = process.env): string {
  const cacheRoot = env.XDG_CACHE_HOME ?? join(homedir(), '.cache');
  return join(cacheRoot, 'kstreams', `confluent-kafka-python-${CONFLUENT_KAFKA_VERSION}`);
}

/** The virtualenv's python, created and filled on first use (about 20 s). */
export function ensureConfluentPython(home = venvHome()): string {
  const python = join(home, 'bin', 'python');
  // Named after what is installed, so that a cache from before an extra was added is refilled.
  const ready = join(home, '.installed-json-protobuf-schemaregistry');
  if (existsSync(ready)) return python;
  mkdirSync(home, { recursive: true });
  try {
    execFileSync('python3', ['-m', 'venv', home], { stdio: 'inherit' });
    execFileSync(
      python,
      [
        '-m',
        'pip',
        'install',
        '-q',
        `confluent-kafka[json,protobuf,schemaregistry]==${CONFLUENT_KAFKA_VERSION}`,
        `protobuf==${PROTOBUF_VERSION}`,
      ],
      { stdio: 'inherit' },
    );
  } catch (err) {
    throw new Error(
      `Could not install confluent-kafka ${CONFLUENT_KAFKA_VERSION} into ${home} (${(err as Error).message}): ` +
        'install Python 3.9+ with venv and pip, with PyPI reachable',
    );
  }
  writeFileSync(ready, '');
  return python;
}

/** What the Python side writes or reads: a Protobuf message (its class built from the fields, no protoc here) or a JSON Schema. */
export type PythonSerdeSpec = { registry: string; topic: string } & (
  | {
      format: 'protobuf';
      package: string;
      message: string;
      fields: Array<{ name: string; number: number; type: 'string' | 'int64' | 'int32'; repeated?: boolean }>;
    }
  | { format: 'json'; schema: object }
);

/**
 * `encode`: objects to records written by ProtobufSerializer / JSONSerializer (which register
 * the schema under `<topic>-value`); `decode`: records to objects read by ProtobufDeserializer /
 * JSONDeserializer.
 */
export async function confluentSerdes(
  mode: 'encode' | 'decode',
  spec: PythonSerdeSpec,
  input: readonly (object | Buffer)[],
): Promise<(object | Buffer)[]> {
  const python = ensureConfluentPython();
  const specFile = join(mkdtempSync(join(tmpdir(), 'kstreams-py-')), 'spec.json');
  writeFileSync(specFile, JSON.stringify(spec));
  const child = spawn(python, [join(here, 'python', 'confluent_serdes.py'), mode, specFile], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const lines = input.map((x) => (Buffer.isBuffer(x) ? x.toString('base64') : JSON.stringify(x)));
  child.stdin.end(`${lines.join('\n')}\n`);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (code !== 0) throw new Error(`confluent_serdes.py ${mode} failed (exit ${code}): ${err}`);
  const results = out.split('\n').filter((l) => l.length > 0);
  return results.map((l) => (mode === 'encode' ? Buffer.from(l, 'base64') : (JSON.parse(l) as object)));
}
