// Command-line flags of the example apps. Every flag can also come from an environment variable
// (flag wins), so that the same image runs from a shell, a compose file or Kubernetes. The apps
// share the flags and differ only in their defaults and the help of their topics.
import { resolve as resolvePath } from 'node:path';
import { parseArgs } from 'node:util';
import type { ProcessingGuarantee } from '@kstreams/core';

export interface AppOptions {
  brokers: string[];
  applicationId: string;
  input: string;
  output: string;
  guarantee: ProcessingGuarantee;
  /** Unset: core's default (`<tmpdir>/kstreams`). */
  stateDir?: string;
  /** Unset: core's default for the guarantee (100 ms exactly_once, 30 s at_least_once). */
  commitIntervalMs?: number;
  /** Unset: core's default (10 s): how soon the group notices a member that died without leaving. */
  sessionTimeoutMs?: number;
  /** KIP-345's static membership: a restart with the same id gets its tasks back, no rebalance. */
  groupInstanceId?: string;
  /** Unset: core's default (0). Standby replicas per stateful task, on other instances (issue 37). */
  numStandbyReplicas?: number;
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

/** What differs between the example apps: the defaults and help of the id and the topics. */
export interface AppDefaults {
  applicationId: string;
  input: string;
  inputHelp: string;
  output: string;
  outputHelp: string;
}

function specs(app: AppDefaults) {
  return {
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
      default: app.applicationId,
      parse: name('an application id'),
    } satisfies FlagSpec<string>,
    input: {
      flag: '--input',
      env: 'INPUT_TOPIC',
      help: app.inputHelp,
      default: app.input,
      parse: name('a topic name'),
    } satisfies FlagSpec<string>,
    output: {
      flag: '--output',
      env: 'OUTPUT_TOPIC',
      help: app.outputHelp,
      default: app.output,
      parse: name('a topic name'),
    } satisfies FlagSpec<string>,
    guarantee: {
      flag: '--guarantee',
      env: 'PROCESSING_GUARANTEE',
      help: 'at_least_once | exactly_once | exactly_once_v2 (one transaction per stream thread)',
      default: 'exactly_once',
      parse(raw, source) {
        if (raw !== 'at_least_once' && raw !== 'exactly_once' && raw !== 'exactly_once_v2') {
          throw new UsageError(
            `${source} must be at_least_once, exactly_once or exactly_once_v2, got ${JSON.stringify(raw)}`,
          );
        }
        return raw;
      },
    } satisfies FlagSpec<ProcessingGuarantee>,
    stateDir: {
      flag: '--state-dir',
      env: 'STATE_DIR',
      help: 'directory of the local stores (default: <tmpdir>/kstreams); one per instance',
      parse(raw, source) {
        if (raw.trim() === '')
          throw new UsageError(`${source} must be a directory path, got an empty string`);
        return raw;
      },
    } satisfies FlagSpec<string>,
    commitIntervalMs: {
      flag: '--commit-interval-ms',
      env: 'COMMIT_INTERVAL_MS',
      help: 'commit interval (default: 100 under exactly_once, 30000 under at_least_once)',
      parse: integer(1, 24 * 3600 * 1000, 'a number of milliseconds'),
    } satisfies FlagSpec<number>,
    sessionTimeoutMs: {
      flag: '--session-timeout-ms',
      env: 'SESSION_TIMEOUT_MS',
      help: 'how soon the group notices an instance that died without leaving (default: 10000; brokers allow 6000 and up)',
      parse: integer(1_000, 3_600_000, 'a number of milliseconds'),
    } satisfies FlagSpec<number>,
    groupInstanceId: {
      flag: '--group-instance-id',
      env: 'GROUP_INSTANCE_ID',
      help: "static membership: this instance's own stable id (e.g. the pod name); a restart with it within the session timeout gets its tasks back without a rebalance",
      parse: name('a group instance id'),
    } satisfies FlagSpec<string>,
    numStandbyReplicas: {
      flag: '--num-standby-replicas',
      env: 'NUM_STANDBY_REPLICAS',
      help: 'standby replicas per stateful task, each on another instance: a crashed instance fails over with only the changelog tail to restore (default: 0)',
      parse: integer(0, 10, 'a number of standby replicas'),
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
}

type Specs = ReturnType<typeof specs>;
export type FlagKey = keyof Specs;
type Key = FlagKey;

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
  all: Specs,
  allowed: readonly Key[],
  maxPositionals: number,
): Collected | 'help' {
  const byName = new Map<string, Key>(allowed.map((k) => [all[k].flag.slice(2), k]));
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
function resolve(spec: FlagSpec<unknown>, given: string | undefined, env: NodeJS.ProcessEnv): unknown {
  if (given !== undefined) return spec.parse(given, spec.flag);
  const envValue = env[spec.env];
  // An empty variable counts as unset, as shells and compose files often leave them.
  if (envValue !== undefined && envValue !== '') return spec.parse(envValue, `${spec.env} (environment)`);
  return spec.default;
}

export const APP_FLAGS = Object.keys(specs({} as AppDefaults)) as Key[];

export interface ParsedFlags {
  /** Reads one flag: the flag, else its environment variable, else the default. */
  read(key: Key): unknown;
  positionals: string[];
}

/** Parses the `allowed` flags (and at most `maxPositionals` arguments); 'help' for --help. */
export function parseFlags(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  app: AppDefaults,
  allowed: readonly Key[],
  maxPositionals = 0,
): ParsedFlags | 'help' {
  const all = specs(app);
  const collected = collect(argv, all, allowed, maxPositionals);
  if (collected === 'help') return collected;
  return {
    read: (key) => resolve(all[key] as FlagSpec<unknown>, collected.given.get(key), env),
    positionals: collected.positionals,
  };
}

/** The flag table of a usage text: flag, environment variable, help and default. */
export function flagTable(app: AppDefaults, keys: readonly Key[] = APP_FLAGS): string[] {
  const all = specs(app);
  const rows = keys.map((k) => {
    const s = all[k] as FlagSpec<unknown>;
    const def =
      s.default === undefined
        ? ''
        : ` (default ${Array.isArray(s.default) ? s.default.join(',') : s.default})`;
    return `  ${`${s.flag} <value>`.padEnd(28)} ${s.env.padEnd(22)} ${s.help}${def}`;
  });
  return [`  ${'flag'.padEnd(28)} ${'environment'.padEnd(22)}`, ...rows, '  --help'];
}

/** An app's options. Throws UsageError naming the flag or variable at fault. */
export function parseAppArgs(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  app: AppDefaults,
): AppOptions | 'help' {
  const flags = parseFlags(argv, env, app, APP_FLAGS);
  if (flags === 'help') return flags;
  const { read } = flags;
  const options: AppOptions = {
    brokers: read('brokers') as string[],
    applicationId: read('applicationId') as string,
    input: read('input') as string,
    output: read('output') as string,
    guarantee: read('guarantee') as ProcessingGuarantee,
    stateDir: read('stateDir') as string | undefined,
    commitIntervalMs: read('commitIntervalMs') as number | undefined,
    sessionTimeoutMs: read('sessionTimeoutMs') as number | undefined,
    groupInstanceId: read('groupInstanceId') as string | undefined,
    numStandbyReplicas: read('numStandbyReplicas') as number | undefined,
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

/**
 * A path the user typed, made absolute against the directory they typed it in: `pnpm --filter`
 * runs the script in the package's directory but keeps the caller's in INIT_CWD.
 */
export function userPath(path: string, env: NodeJS.ProcessEnv = process.env): string {
  return resolvePath(env.INIT_CWD ?? process.cwd(), path);
}

/** The flags of a command that writes to an app's input topic. */
export const FEED_FLAGS = ['brokers', 'input', 'partitions'] as const;

export interface FeedTarget {
  brokers: string[];
  input: string;
  /** Partitions of the input topic when the feeder creates it. */
  partitions: number;
}

export function feedTarget(flags: ParsedFlags): FeedTarget {
  return {
    brokers: flags.read('brokers') as string[],
    input: flags.read('input') as string,
    partitions: flags.read('partitions') as number,
  };
}

/**
 * `parse()`, or the exit a command makes on bad flags: code 2 and `<command>: <message>` (with
 * `hint`) on stderr; `--help` (the 'help' result) prints `usage` and exits 0.
 */
export function parseOrExit<T>(command: string, parse: () => T | 'help', usage = '', hint = ''): T {
  try {
    const parsed = parse();
    if (parsed === 'help') {
      console.log(usage);
      process.exit(0);
    }
    return parsed;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`${command}: ${error.message}${hint}`);
    process.exit(2);
  }
}

/**
 * Whole-number flags of a data generator (`--orders 5000`), each from 1 to its `max`, else its
 * default. Throws UsageError naming the flag, or the flags it takes.
 */
export function parseWholeNumberFlags<N extends string>(
  argv: readonly string[],
  flags: Record<N, { fallback: number; max: number }>,
): Record<N, number> {
  const names = Object.keys(flags) as N[];
  let values: Record<string, string | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      options: Object.fromEntries(names.map((n) => [n, { type: 'string' as const }])),
    }) as { values: Record<string, string | undefined> });
  } catch (error) {
    const list = names.map((n) => `--${n} <n>`);
    const takes = list.length > 1 ? `${list.slice(0, -1).join(', ')} and ${list.at(-1)}` : list[0];
    throw new UsageError(`${(error as Error).message.split('\n')[0]}; the generator takes ${takes}`);
  }
  const parsed = {} as Record<N, number>;
  for (const n of names) {
    const { fallback, max } = flags[n];
    const raw = values[n];
    if (raw !== undefined && (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > max))
      throw new UsageError(`--${n} must be a whole number from 1 to ${max}, got ${JSON.stringify(raw)}`);
    parsed[n] = raw === undefined ? fallback : Number(raw);
  }
  return parsed;
}
