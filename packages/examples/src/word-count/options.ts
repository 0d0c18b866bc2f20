// Command-line flags of the word-count app. Every flag can also come from an environment
// variable (flag wins), so that the same image runs from a shell, a compose file or Kubernetes.
import { resolve as resolvePath } from 'node:path';
import { parseArgs } from 'node:util';
import type { ProcessingGuarantee } from '@kstreams/core';

export interface WordCountOptions {
  brokers: string[];
  applicationId: string;
  input: string;
  output: string;
  guarantee: ProcessingGuarantee;
  /** Unset: core's default (`<tmpdir>/kstreams`). */
  stateDir?: string;
  /** Unset: core's default for the guarantee (100 ms exactly_once, 30 s at_least_once). */
  commitIntervalMs?: number;
  /** HTTP port for interactive queries; 0 picks a free one. */
  port: number;
  /** The host other instances use to reach this one (the `host` of `applicationServer`). */
  host: string;
  /** Partitions of the input and output topics when the app creates them. */
  partitions: number;
  logLevel: string;
}

/** A bad flag or environment value; the CLI prints the message and exits with code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

interface FlagSpec<T> {
  flag: string;
  env: string;
  help: string;
  default?: T;
  parse(raw: string, source: string): T;
}

const NAME = /^[a-zA-Z0-9._-]{1,249}$/;
const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function name(what: string) {
  return (raw: string, source: string) => {
    if (!NAME.test(raw) || raw === '.' || raw === '..') {
      throw new UsageError(
        `${source} must be ${what} of 1 to 249 letters, digits, ".", "_" or "-", got ${JSON.stringify(raw)}`,
      );
    }
    return raw;
  };
}

function integer(min: number, max: number, what: string) {
  return (raw: string, source: string) => {
    const value = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
    if (!Number.isSafeInteger(value) || value < min || value > max) {
      throw new UsageError(
        `${source} must be ${what} (an integer from ${min} to ${max}), got ${JSON.stringify(raw)}`,
      );
    }
    return value;
  };
}

const SPECS = {
  brokers: {
    flag: '--brokers',
    env: 'KAFKA_BROKERS',
    help: 'comma-separated host:port list of Kafka brokers',
    default: ['127.0.0.1:9092'],
    parse(raw, source) {
      const list = raw
        .split(',')
        .map((b) => b.trim())
        .filter((b) => b.length > 0);
      const bad = list.filter((b) => !/^[^\s:,]+:\d{1,5}$/.test(b));
      if (list.length === 0 || bad.length > 0) {
        throw new UsageError(
          `${source} must be a comma-separated list of host:port, e.g. 127.0.0.1:9092, got ${JSON.stringify(raw)}`,
        );
      }
      return list;
    },
  } satisfies FlagSpec<string[]>,
  applicationId: {
    flag: '--application-id',
    env: 'APPLICATION_ID',
    help: 'consumer group and prefix of the internal topics; instances with the same id share the work',
    default: 'word-count',
    parse: name('an application id'),
  } satisfies FlagSpec<string>,
  input: {
    flag: '--input',
    env: 'INPUT_TOPIC',
    help: 'topic of text lines',
    default: 'text-input',
    parse: name('a topic name'),
  } satisfies FlagSpec<string>,
  output: {
    flag: '--output',
    env: 'OUTPUT_TOPIC',
    help: 'topic of word counts (key: word, value: 64-bit big-endian count)',
    default: 'word-counts',
    parse: name('a topic name'),
  } satisfies FlagSpec<string>,
  guarantee: {
    flag: '--guarantee',
    env: 'PROCESSING_GUARANTEE',
    help: 'at_least_once | exactly_once',
    default: 'exactly_once',
    parse(raw, source) {
      if (raw !== 'at_least_once' && raw !== 'exactly_once') {
        throw new UsageError(`${source} must be at_least_once or exactly_once, got ${JSON.stringify(raw)}`);
      }
      return raw;
    },
  } satisfies FlagSpec<ProcessingGuarantee>,
  stateDir: {
    flag: '--state-dir',
    env: 'STATE_DIR',
    help: 'directory of the local stores (default: <tmpdir>/kstreams); one per instance',
    parse(raw, source) {
      if (raw.trim() === '') throw new UsageError(`${source} must be a directory path, got an empty string`);
      return raw;
    },
  } satisfies FlagSpec<string>,
  commitIntervalMs: {
    flag: '--commit-interval-ms',
    env: 'COMMIT_INTERVAL_MS',
    help: 'commit interval (default: 100 under exactly_once, 30000 under at_least_once)',
    parse: integer(1, 24 * 3600 * 1000, 'a number of milliseconds'),
  } satisfies FlagSpec<number>,
  port: {
    flag: '--port',
    env: 'PORT',
    help: 'HTTP port for interactive queries (0: any free port)',
    default: 7070,
    parse: integer(0, 65535, 'a TCP port'),
  } satisfies FlagSpec<number>,
  host: {
    flag: '--host',
    env: 'APPLICATION_HOST',
    help: 'host name other instances reach this one at (default: 127.0.0.1)',
    default: '127.0.0.1',
    parse(raw, source) {
      if (!/^[^\s:/]+$/.test(raw)) {
        throw new UsageError(
          `${source} must be a host name or IPv4 address, without a port, got ${JSON.stringify(raw)}`,
        );
      }
      return raw;
    },
  } satisfies FlagSpec<string>,
  partitions: {
    flag: '--partitions',
    env: 'PARTITIONS',
    help: 'partitions of the input and output topics when this app creates them',
    default: 4,
    parse: integer(1, 10_000, 'a partition count'),
  } satisfies FlagSpec<number>,
  logLevel: {
    flag: '--log-level',
    env: 'LOG_LEVEL',
    help: LEVELS.join(' | '),
    default: 'info',
    parse(raw, source) {
      if (!LEVELS.includes(raw)) {
        throw new UsageError(`${source} must be one of ${LEVELS.join(', ')}, got ${JSON.stringify(raw)}`);
      }
      return raw;
    },
  } satisfies FlagSpec<string>,
};

type Key = keyof typeof SPECS;

interface Collected {
  given: Map<Key, string>;
  positionals: string[];
}

/**
 * Reads `--flag value` and `--flag=value` for the allowed flags with node:util's parseArgs;
 * 'help' for --help/-h. parseArgs' errors are reworded to name the flags this command takes.
 */
function collect(
  argv: readonly string[],
  allowed: readonly Key[],
  maxPositionals: number,
): Collected | 'help' {
  const byName = new Map<string, Key>(allowed.map((k) => [SPECS[k].flag.slice(2), k]));
  const flags = [...byName.keys()].map((n) => `--${n}`);
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: true,
      options: {
        help: { type: 'boolean', short: 'h' },
        ...Object.fromEntries([...byName.keys()].map((n) => [n, { type: 'string', multiple: true }])),
      },
    });
  } catch (error) {
    const { code, message } = error as { code?: string; message: string };
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      const flag = /'([^']+)'/.exec(message)?.[1] ?? message;
      throw new UsageError(`unknown flag ${flag}; the flags are: ${flags.join(', ')}, --help`);
    }
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
      const flag = /--[a-z-]+/.exec(message)?.[0] ?? 'a flag';
      throw new UsageError(`${flag} needs a value (see --help)`);
    }
    throw new UsageError(`${message} (see --help)`);
  }
  if (parsed.values.help) return 'help';
  if (parsed.positionals.length > maxPositionals) {
    const arg = parsed.positionals[maxPositionals]!;
    throw new UsageError(
      maxPositionals === 0
        ? `unexpected argument ${JSON.stringify(arg)}: this command takes only flags (see --help)`
        : `unexpected argument ${JSON.stringify(arg)}: this command takes at most ${maxPositionals} (see --help)`,
    );
  }
  const given = new Map<Key, string>();
  for (const [n, key] of byName) {
    const values = parsed.values[n] as string[] | undefined;
    if (values === undefined) continue;
    if (values.length > 1) throw new UsageError(`--${n} is given twice`);
    given.set(key, values[0]!);
  }
  return { given, positionals: parsed.positionals };
}

/** A flag beats its environment variable, which beats the default. */
function resolve(key: Key, given: Map<Key, string>, env: NodeJS.ProcessEnv): unknown {
  const spec = SPECS[key] as FlagSpec<unknown>;
  const flagValue = given.get(key);
  if (flagValue !== undefined) return spec.parse(flagValue, spec.flag);
  const envValue = env[spec.env];
  // An empty variable counts as unset, as shells and compose files often leave them.
  if (envValue !== undefined && envValue !== '') return spec.parse(envValue, `${spec.env} (environment)`);
  return spec.default;
}

const APP_KEYS = Object.keys(SPECS) as Key[];
const FEED_KEYS: Key[] = ['brokers', 'input', 'partitions'];

export function usage(command: 'word-count' | 'feed' = 'word-count'): string {
  const keys = command === 'feed' ? FEED_KEYS : APP_KEYS;
  const rows = keys.map((k) => {
    const s = SPECS[k] as FlagSpec<unknown>;
    const def =
      s.default === undefined
        ? ''
        : ` (default ${Array.isArray(s.default) ? s.default.join(',') : s.default})`;
    return `  ${`${s.flag} <value>`.padEnd(28)} ${s.env.padEnd(22)} ${s.help}${def}`;
  });
  const head =
    command === 'feed'
      ? [
          'Usage: pnpm --filter @kstreams/examples feed [file] [flags]',
          '',
          'Writes a text file to the input topic, one record per non-empty line (null key, the line as',
          'value); without a file, the King James Bible shipped in packages/examples/data/kjv.txt.',
        ]
      : ['Usage: pnpm --filter @kstreams/examples word-count [flags]'];
  return [...head, '', `  ${'flag'.padEnd(28)} ${'environment'.padEnd(22)}`, ...rows, '  --help'].join('\n');
}

/** The word-count app's options. Throws UsageError naming the flag or variable at fault. */
export function parseWordCountArgs(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): WordCountOptions | 'help' {
  const collected = collect(argv, APP_KEYS, 0);
  if (collected === 'help') return collected;
  const read = (key: Key) => resolve(key, collected.given, env);
  const options: WordCountOptions = {
    brokers: read('brokers') as string[],
    applicationId: read('applicationId') as string,
    input: read('input') as string,
    output: read('output') as string,
    guarantee: read('guarantee') as ProcessingGuarantee,
    stateDir: read('stateDir') as string | undefined,
    commitIntervalMs: read('commitIntervalMs') as number | undefined,
    port: read('port') as number,
    host: read('host') as string,
    partitions: read('partitions') as number,
    logLevel: read('logLevel') as string,
  };
  if (options.input === options.output) {
    throw new UsageError(
      `the input and output topics must differ, both are ${JSON.stringify(options.input)}`,
    );
  }
  return options;
}

export interface FeedOptions {
  /** Unset: the shipped book. */
  file?: string;
  brokers: string[];
  input: string;
  partitions: number;
}

/** The feeder's options: an optional file, --brokers, --input, --partitions. */
export function parseFeedArgs(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): FeedOptions | 'help' {
  const collected = collect(argv, FEED_KEYS, 1);
  if (collected === 'help') return collected;
  const read = (key: Key) => resolve(key, collected.given, env);
  return {
    file: collected.positionals[0],
    brokers: read('brokers') as string[],
    input: read('input') as string,
    partitions: read('partitions') as number,
  };
}

/**
 * A path the user typed, made absolute against the directory they typed it in: `pnpm --filter`
 * runs the script in the package's directory but keeps the caller's in INIT_CWD.
 */
export function userPath(path: string, env: NodeJS.ProcessEnv = process.env): string {
  return resolvePath(env.INIT_CWD ?? process.cwd(), path);
}

/** Genesis, the first book of the KJV, is lines 1-1,533 of the shipped text. */
export const GENESIS_LINES = 1_533;

export interface DemoOptions {
  text: string;
  /** Feed only the first `lines` non-empty lines (undefined: all). */
  lines?: number;
}

/** `--text FILE` (DEMO_TEXT) and `--lines N|all` (DEMO_LINES); default: Genesis from the shipped book. */
export function parseDemoArgs(argv: readonly string[], env: NodeJS.ProcessEnv, book: string): DemoOptions {
  let values: { text?: string | undefined; lines?: string | undefined };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      options: { text: { type: 'string' }, lines: { type: 'string' } },
    }));
  } catch (error) {
    throw new UsageError(
      `${(error as Error).message.split('\n')[0]}; the demo takes --text <file> and --lines <n|all>`,
    );
  }
  const flags = new Map<string, string>();
  if (values.text !== undefined) flags.set('--text', values.text);
  if (values.lines !== undefined) flags.set('--lines', values.lines);
  const text = flags.get('--text') ?? (env.DEMO_TEXT || undefined);
  const rawLines =
    flags.get('--lines') ?? (env.DEMO_LINES || (text === undefined ? String(GENESIS_LINES) : 'all'));
  if (rawLines !== 'all' && !/^[1-9]\d*$/.test(rawLines)) {
    throw new UsageError(
      `--lines (DEMO_LINES) must be a positive whole number or "all", got ${JSON.stringify(rawLines)}`,
    );
  }
  return {
    text: text === undefined ? book : userPath(text, env),
    lines: rawLines === 'all' ? undefined : Number(rawLines),
  };
}
