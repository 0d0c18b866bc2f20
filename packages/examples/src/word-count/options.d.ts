import { type AppDefaults, type AppOptions, type FeedTarget, UsageError, userPath } from '../common/options.ts';
export { UsageError, userPath };
export type WordCountOptions = AppOptions;
export declare const WORD_COUNT_DEFAULTS: AppDefaults;
export declare function usage(command?: 'word-count' | 'feed'): string;
/** The word-count app's options. Throws UsageError naming the flag or variable at fault. */
export declare function parseWordCountArgs(argv: readonly string[], env?: NodeJS.ProcessEnv): WordCountOptions | 'help';
export interface FeedOptions extends FeedTarget {
    /** Unset: the shipped book. */
    file?: string;
}
/** The feeder's options: an optional file, --brokers, --input, --partitions. */
export declare function parseFeedArgs(argv: readonly string[], env?: NodeJS.ProcessEnv): FeedOptions | 'help';
/** Genesis, the first book of the KJV, is lines 1-1,533 of the shipped text. */
export declare const GENESIS_LINES = 1533;
export interface DemoOptions {
    text: string;
    /** Feed only the first `lines` non-empty lines (undefined: all). */
    lines?: number;
}
/** `--text FILE` (DEMO_TEXT) and `--lines N|all` (DEMO_LINES); default: Genesis from the shipped book. */
export declare function parseDemoArgs(argv: readonly string[], env: NodeJS.ProcessEnv, book: string): DemoOptions;
