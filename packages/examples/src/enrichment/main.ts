// The enrichment app as a command: flags (or environment variables) in, runs until SIGTERM/SIGINT.
import { runServiceCommand } from '../common/main.ts';
import { startEnrichment } from './app.ts';
import { parseEnrichmentArgs, usage } from './options.ts';

await runServiceCommand({
  name: 'enrichment',
  parse: (argv) => parseEnrichmentArgs(argv),
  usage,
  start: startEnrichment,
});
