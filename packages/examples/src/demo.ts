// `npm run demo -- [word-count | page-views | enrichment | payment-scoring | avro | rolling-restart] [flags]`: runs one example end to end (word count when
// no name is given) and exits non-zero when its output is wrong.
import { enrichmentDemo } from './enrichment/demo.ts';
import { pageViewsDemo } from './page-views/demo.ts';
import { paymentScoringDemo } from './payment-scoring/demo.ts';
import { rollingRestartDemo } from './rolling-restart/demo.ts';
import { wordCountDemo } from './word-count/demo.ts';

const DEMOS: Record<string, (argv: readonly string[]) => Promise<unknown>> = {
  'word-count': wordCountDemo,
  'page-views': pageViewsDemo,
  enrichment: enrichmentDemo,
  'payment-scoring': paymentScoringDemo,
  'rolling-restart': rollingRestartDemo,
  // Loaded only when asked for: it brings the registry serdes and their libraries.
  avro: () => import('./avro/demo.ts'),
};

const [first, ...rest] = process.argv.slice(2);
if (first === undefined || first.startsWith('-')) {
  await wordCountDemo(process.argv.slice(2));
} else {
  const demo = DEMOS[first];
  if (!demo) {
    console.error(
      `demo: no demo named ${JSON.stringify(first)}; the demos are: ${Object.keys(DEMOS).join(', ')}`,
    );
    process.exit(2);
  }
  await demo(rest);
}
