// The page-views app's flags: the shared ones (common/options.ts) with its own defaults.
import {
  type AppDefaults,
  type AppOptions,
  FEED_FLAGS,
  type FeedTarget,
  feedTarget,
  flagTable,
  parseAppArgs,
  parseFlags,
  parseWholeNumberFlags,
} from '../common/options.ts';

export const PAGE_VIEWS_DEFAULTS: AppDefaults = {
  applicationId: 'page-views',
  input: 'page-views',
  inputHelp: 'topic of page views (key: user, value: {"page": ...} as JSON, or the page as text)',
  output: 'page-views-per-minute',
  outputHelp:
    "topic of final views per user and minute (key: Java's time-windowed user, value: 64-bit count)",
};

export function usage(): string {
  return [
    'Usage: pnpm --filter @kstreams/examples page-views [flags]',
    '',
    ...flagTable(PAGE_VIEWS_DEFAULTS),
  ].join('\n');
}

export function parsePageViewsArgs(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): AppOptions | 'help' {
  return parseAppArgs(argv, env, PAGE_VIEWS_DEFAULTS);
}

export interface GeneratorFlags {
  users: number;
  hours: number;
  seed: number;
}

/** `--users N` (default 50), `--hours N` (4), `--seed N` (42). */
export function parseGeneratorArgs(argv: readonly string[]): GeneratorFlags {
  return parseWholeNumberFlags(argv, {
    users: { fallback: 50, max: 10_000 },
    hours: { fallback: 4, max: 48 },
    seed: { fallback: 42, max: 2 ** 31 },
  });
}

const GENERATOR_FLAGS = ['--users', '--hours', '--seed'];
export interface PageViewsFeedOptions extends GeneratorFlags, FeedTarget {}

/** The feeder's flags: the generator's and --brokers, --input, --partitions (with their variables). */
export function parseFeedArgs(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): PageViewsFeedOptions | 'help' {
  const generator: string[] = [];
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (GENERATOR_FLAGS.includes(arg.split('=')[0]!)) {
      generator.push(arg);
      if (!arg.includes('=') && i + 1 < argv.length) generator.push(argv[++i]!);
    } else rest.push(arg);
  }
  const flags = parseFlags(rest, env, PAGE_VIEWS_DEFAULTS, FEED_FLAGS);
  if (flags === 'help') return flags;
  return { ...parseGeneratorArgs(generator), ...feedTarget(flags) };
}

export function feedUsage(): string {
  const table = flagTable(PAGE_VIEWS_DEFAULTS, FEED_FLAGS);
  return [
    'Usage: pnpm --filter @kstreams/examples page-views-feed [flags]',
    '',
    'Writes generated page views (the same for the same seed) to the input topic, then one record per',
    'partition 40 minutes later so that the last minutes and sessions close.',
    '',
    ...table.slice(0, -1),
    `  ${'--users <n>'.padEnd(28)} ${''.padEnd(22)} simulated users (default 50)`,
    `  ${'--hours <n>'.padEnd(28)} ${''.padEnd(22)} simulated hours, ending an hour before this one (default 4)`,
    `  ${'--seed <n>'.padEnd(28)} ${''.padEnd(22)} seed of the generator (default 42)`,
    table.at(-1)!,
  ].join('\n');
}
