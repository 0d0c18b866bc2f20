// The word-count app's flags (the shared ones of common/options.ts with its defaults), the
// feeder's and the demo's.
import { parseArgs } from 'node:util';
import {
  type AppDefaults,
  type AppOptions,
  FEED_FLAGS,
  type FeedTarget,
  feedTarget,
  flagTable,
  parseAppArgs,
  parseFlags,
  UsageError,
  userPath,
} from '../common/options.ts';

export { UsageError, userPath };

export type WordCountOptions = AppOptions;

export const WORD_COUNT_DEFAULTS: AppDefaults = {
  applicationId: 'word-count',
  input: 'text-input',
  inputHelp: 'topic of text lines',
  output: 'word-counts',
  outputHelp: 'topic of word counts (key: word, value: 64-bit big-endian count)',
};

export function usage(command: 'word-count' | 'feed' = 'word-count'): string {
  const head =
    command === 'feed'
      ? [
          'Usage: pnpm --filter @kstreams/examples feed [file] [flags]',
          '',
          'Writes a text file to the input topic, one record per non-empty line (null key, the line as',
          'value); without a file, the King James Bible shipped in packages/examples/data/kjv.txt.',
        ]
      : ['Usage: pnpm --filter @kstreams/examples word-count [flags]'];
  const table = flagTable(WORD_COUNT_DEFAULTS, command === 'feed' ? FEED_FLAGS : undefined);
  return [...head, '', ...table].join('\n');
}

/** The word-count app's options. Throws UsageError naming the flag or variable at fault. */
export function parseWordCountArgs(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): WordCountOptions | 'help' {
  return parseAppArgs(argv, env, WORD_COUNT_DEFAULTS);
}

export interface FeedOptions extends FeedTarget {
  /** Unset: the shipped book. */
  file?: string;
}

/** The feeder's options: an optional file, --brokers, --input, --partitions. */
export function parseFeedArgs(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): FeedOptions | 'help' {
  const flags = parseFlags(argv, env, WORD_COUNT_DEFAULTS, FEED_FLAGS, 1);
  if (flags === 'help') return flags;
  return { file: flags.positionals[0], ...feedTarget(flags) };
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
