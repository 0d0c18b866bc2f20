import type { ProcessingGuarantee } from '@kstreams/core';
export interface AppOptions {
    brokers: string[];
    applicationId: string;
    input: string;
    output: string;
    guarantee: ProcessingGuarantee;
    /** Unset: core's default (`<tmpdir>/kstreams`). */
    stateDir?: string;
    /** Unset: core's default for the guarantee (100 ms exactly_once, 30 s at_least_once). */
    commitIntervalMs?: number;
    /** Unset: core's default (10 s): how soon the group notices a member that died without leaving. */
    sessionTimeoutMs?: number;
    /** HTTP port for interactive queries; 0 picks a free one. */
    port: number;
    /** The host other instances use to reach this one (the `host` of `applicationServer`). */
    host: string;
    /** Partitions of the input and output topics when the app creates them. */
    partitions: number;
    logLevel: string;
}
/** A bad flag or environment value; the CLI prints the message and exits with code 2. */
export declare class UsageError extends Error {
    name: string;
}
/** What differs between the example apps: the defaults and help of the id and the topics. */
export interface AppDefaults {
    applicationId: string;
    input: string;
    inputHelp: string;
    output: string;
    outputHelp: string;
}
declare function specs(app: AppDefaults): {
    brokers: {
        flag: string;
        env: string;
        help: string;
        default: string[];
        parse(raw: string, source: string): string[];
    };
    applicationId: {
        flag: string;
        env: string;
        help: string;
        default: string;
        parse: (raw: string, source: string) => string;
    };
    input: {
        flag: string;
        env: string;
        help: string;
        default: string;
        parse: (raw: string, source: string) => string;
    };
    output: {
        flag: string;
        env: string;
        help: string;
        default: string;
        parse: (raw: string, source: string) => string;
    };
    guarantee: {
        flag: string;
        env: string;
        help: string;
        default: "exactly_once";
        parse(raw: string, source: string): "at_least_once" | "exactly_once" | "exactly_once_v2";
    };
    stateDir: {
        flag: string;
        env: string;
        help: string;
        parse(raw: string, source: string): string;
    };
    commitIntervalMs: {
        flag: string;
        env: string;
        help: string;
        parse: (raw: string, source: string) => number;
    };
    sessionTimeoutMs: {
        flag: string;
        env: string;
        help: string;
        parse: (raw: string, source: string) => number;
    };
    port: {
        flag: string;
        env: string;
        help: string;
        default: number;
        parse: (raw: string, source: string) => number;
    };
    host: {
        flag: string;
        env: string;
        help: string;
        default: string;
        parse(raw: string, source: string): string;
    };
    partitions: {
        flag: string;
        env: string;
        help: string;
        default: number;
        parse: (raw: string, source: string) => number;
    };
    logLevel: {
        flag: string;
        env: string;
        help: string;
        default: string;
        parse(raw: string, source: string): string;
    };
};
type Specs = ReturnType<typeof specs>;
export type FlagKey = keyof Specs;
type Key = FlagKey;
export declare const APP_FLAGS: Key[];
export interface ParsedFlags {
    /** Reads one flag: the flag, else its environment variable, else the default. */
    read(key: Key): unknown;
    positionals: string[];
}
/** Parses the `allowed` flags (and at most `maxPositionals` arguments); 'help' for --help. */
export declare function parseFlags(argv: readonly string[], env: NodeJS.ProcessEnv, app: AppDefaults, allowed: readonly Key[], maxPositionals?: number): ParsedFlags | 'help';
/** The flag table of a usage text: flag, environment variable, help and default. */
export declare function flagTable(app: AppDefaults, keys?: readonly Key[]): string[];
/** An app's options. Throws UsageError naming the flag or variable at fault. */
export declare function parseAppArgs(argv: readonly string[], env: NodeJS.ProcessEnv, app: AppDefaults): AppOptions | 'help';
/**
 * A path the user typed, made absolute against the directory they typed it in: `pnpm --filter`
 * runs the script in the package's directory but keeps the caller's in INIT_CWD.
 */
export declare function userPath(path: string, env?: NodeJS.ProcessEnv): string;
/** The flags of a command that writes to an app's input topic. */
export declare const FEED_FLAGS: readonly ["brokers", "input", "partitions"];
export interface FeedTarget {
    brokers: string[];
    input: string;
    /** Partitions of the input topic when the feeder creates it. */
    partitions: number;
}
export declare function feedTarget(flags: ParsedFlags): FeedTarget;
/**
 * `parse()`, or the exit a command makes on bad flags: code 2 and `<command>: <message>` (with
 * `hint`) on stderr; `--help` (the 'help' result) prints `usage` and exits 0.
 */
export declare function parseOrExit<T>(command: string, parse: () => T | 'help', usage?: string, hint?: string): T;
/**
 * Whole-number flags of a data generator (`--orders 5000`), each from 1 to its `max`, else its
 * default. Throws UsageError naming the flag, or the flags it takes.
 */
export declare function parseWholeNumberFlags<N extends string>(argv: readonly string[], flags: Record<N, {
    fallback: number;
    max: number;
}>): Record<N, number>;
export {};
