// The word-count app as a command: flags (or environment variables) in, runs until SIGTERM/SIGINT.
import { runServiceCommand } from '../common/main.ts';
import { startWordCount } from './app.ts';
import { parseWordCountArgs, usage } from './options.ts';

await runServiceCommand({
  name: 'word-count',
  parse: (argv) => parseWordCountArgs(argv),
  usage: () => usage('word-count'),
  start: startWordCount,
});
