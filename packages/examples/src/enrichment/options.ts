// The enrichment app's flags: the shared ones (common/options.ts), with --input and --output as
// the prefixes of its four input and two output topics.
import {
  type AppDefaults,
  type AppOptions,
  flagTable,
  parseAppArgs,
  parseWholeNumberFlags,
} from '../common/options.ts';

export const ENRICHMENT_DEFAULTS: AppDefaults = {
  applicationId: 'enrichment',
  input: 'shop',
  inputHelp:
    'prefix of the input topics <prefix>-orders, -payments (keyed by order id), -customers, -products (JSON values)',
  output: 'shop-out',
  outputHelp: 'prefix of the output topics <prefix>-enriched-orders and <prefix>-order-status',
};

export function usage(): string {
  return [
    'Usage: pnpm --filter @kstreams/examples enrichment [flags]',
    '',
    ...flagTable(ENRICHMENT_DEFAULTS),
  ].join('\n');
}

export function parseEnrichmentArgs(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): AppOptions | 'help' {
  return parseAppArgs(argv, env, ENRICHMENT_DEFAULTS);
}

export interface ShopFlags {
  orders: number;
  customers: number;
  seed: number;
}

/** `--orders N` (default 5000), `--customers N` (200), `--seed N` (42). */
export function parseShopArgs(argv: readonly string[]): ShopFlags {
  return parseWholeNumberFlags(argv, {
    orders: { fallback: 5_000, max: 1_000_000 },
    customers: { fallback: 200, max: 100_000 },
    seed: { fallback: 42, max: 2 ** 31 },
  });
}
