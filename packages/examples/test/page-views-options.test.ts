import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../src/common/options.ts';
import { parseFeedArgs, parseGeneratorArgs, parsePageViewsArgs } from '../src/page-views/options.ts';
import { root } from './instances.ts';

describe('page-views flags', () => {
  it('has its own defaults on the shared flags', () => {
    expect(parsePageViewsArgs([], {})).toMatchObject({
      applicationId: 'page-views',
      input: 'page-views',
      output: 'page-views-per-minute',
      port: 7070,
    });
    expect(parsePageViewsArgs(['--output', 'x'], { INPUT_TOPIC: 'y' })).toMatchObject({
      input: 'y',
      output: 'x',
    });
  });

  it('the feeder takes the generator flags next to --brokers, --input and --partitions', () => {
    expect(parseFeedArgs(['--users', '7', '--input', 'v', '--seed=3', '--hours', '2'], {})).toEqual({
      users: 7,
      hours: 2,
      seed: 3,
      brokers: ['127.0.0.1:9092'],
      input: 'v',
      partitions: 4,
    });
    expect(() => parseFeedArgs(['--output', 'x'], {})).toThrow(/unknown flag --output/);
  });

  it('says what is wrong with a generator flag', () => {
    expect(parseGeneratorArgs([])).toEqual({ users: 50, hours: 4, seed: 42 });
    expect(() => parseGeneratorArgs(['--hours', '0'])).toThrow(UsageError);
    expect(() => parseGeneratorArgs(['--hours', '0'])).toThrow(
      '--hours must be a whole number from 1 to 48, got "0"',
    );
    expect(() => parseGeneratorArgs(['--days', '2'])).toThrow(
      /takes --users <n>, --hours <n> and --seed <n>/,
    );
  });

  it('npm run demo -- <name>: an unknown demo exits 2 naming the demos', () => {
    const result = spawnSync('node_modules/.bin/tsx', ['packages/examples/src/demo.ts', 'page-view'], {
      cwd: root,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('no demo named "page-view"; the demos are: word-count, page-views');
  });
});
