// The page-views app as a command: flags (or environment variables) in, runs until SIGTERM/SIGINT.
import { runServiceCommand } from '../common/main.ts';
import { startPageViews } from './app.ts';
import { parsePageViewsArgs, usage } from './options.ts';

await runServiceCommand({
  name: 'page-views',
  parse: (argv) => parsePageViewsArgs(argv),
  usage,
  start: startPageViews,
});
