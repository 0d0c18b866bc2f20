// The example's reusable parts, for benchmarks and for users who copy it.

export { startPageViews } from './page-views/app.ts';
export {
  countsPerMinute,
  type GeneratedViews,
  type GeneratorOptions,
  generatePageViews,
  type PageView,
  sessionsPerUser,
} from './page-views/generator.ts';
export { pageViewSerde, pageViewsTopology, type Session } from './page-views/topology.ts';
export { type RunningWordCount, startWordCount } from './word-count/app.ts';
export { BOOK_PATH, type FeedResult, feedLines, readLines } from './word-count/feeder.ts';
export { parseWordCountArgs, type WordCountOptions } from './word-count/options.ts';
export { type QueryableStreams, WordCountQueries } from './word-count/queries.ts';
export { COUNTS_STORE, wordCountTopology } from './word-count/topology.ts';
export { wordsOf } from './word-count/words.ts';
