// The page-views app's flags: the shared ones (common/options.ts) with its own defaults.
import { type AppDefaults, type AppOptions, flagTable, parseAppArgs } from '../common/options.ts';

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
