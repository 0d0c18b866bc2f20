import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  GENESIS_LINES,
  parseDemoArgs,
  parseFeedArgs,
  parseWordCountArgs,
  UsageError,
  userPath,
} from '../src/word-count/options.ts';

const root = join(import.meta.dirname, '..', '..', '..');

function parseError(argv: string[], env: NodeJS.ProcessEnv = {}): string {
  try {
    parseWordCountArgs(argv, env);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error(`expected ${JSON.stringify(argv)} to be rejected`);
}

describe('word-count flags', () => {
  it('has the documented defaults', () => {
    expect(parseWordCountArgs([], {})).toEqual({
      brokers: ['127.0.0.1:9092'],
      applicationId: 'word-count',
      input: 'text-input',
      output: 'word-counts',
      guarantee: 'exactly_once',
      stateDir: undefined,
      commitIntervalMs: undefined,
      port: 7070,
      host: '127.0.0.1',
      partitions: 4,
      logLevel: 'info',
    });
  });

  it('reads every flag from its environment variable', () => {
    const options = parseWordCountArgs([], {
      KAFKA_BROKERS: 'k1:9092, k2:9093',
      APPLICATION_ID: 'wc-2',
      INPUT_TOPIC: 'lines',
      OUTPUT_TOPIC: 'counts',
      PROCESSING_GUARANTEE: 'at_least_once',
      STATE_DIR: '/var/lib/wc',
      COMMIT_INTERVAL_MS: '250',
      SESSION_TIMEOUT_MS: '6000',
      GROUP_INSTANCE_ID: 'wc-0',
      NUM_STANDBY_REPLICAS: '1',
      PORT: '8081',
      APPLICATION_HOST: 'wc-0.wc',
      PARTITIONS: '8',
      LOG_LEVEL: 'debug',
    });
    expect(options).toEqual({
      brokers: ['k1:9092', 'k2:9093'],
      applicationId: 'wc-2',
      input: 'lines',
      output: 'counts',
      guarantee: 'at_least_once',
      stateDir: '/var/lib/wc',
      commitIntervalMs: 250,
      sessionTimeoutMs: 6000,
      groupInstanceId: 'wc-0',
      numStandbyReplicas: 1,
      port: 8081,
      host: 'wc-0.wc',
      partitions: 8,
      logLevel: 'debug',
    });
  });

  it("takes exactly_once_v2 (Kafka Streams' one transaction per stream thread)", () => {
    expect(parseWordCountArgs(['--guarantee', 'exactly_once_v2'], {})).toMatchObject({
      guarantee: 'exactly_once_v2',
    });
  });

  it('lets a flag (--f v or --f=v) win over its variable; an empty variable counts as unset', () => {
    const options = parseWordCountArgs(['--port', '9000', '--guarantee=at_least_once', '--brokers=b:1'], {
      PORT: '8000',
      PROCESSING_GUARANTEE: 'exactly_once',
      KAFKA_BROKERS: 'a:1',
      APPLICATION_ID: '',
    });
    expect(options).toMatchObject({
      port: 9000,
      guarantee: 'at_least_once',
      brokers: ['b:1'],
      applicationId: 'word-count',
    });
  });

  it('takes a group instance id for static membership, from --group-instance-id or GROUP_INSTANCE_ID', () => {
    expect(parseWordCountArgs(['--group-instance-id', 'wc-1'], { GROUP_INSTANCE_ID: 'x' })).toMatchObject({
      groupInstanceId: 'wc-1',
    });
    expect(parseError(['--group-instance-id', 'pod/1'])).toBe(
      '--group-instance-id must be a group instance id of 1 to 249 letters, digits, ".", "_" or "-", got "pod/1"',
    );
  });

  it('takes standby replicas from --num-standby-replicas or NUM_STANDBY_REPLICAS', () => {
    expect(parseWordCountArgs([], { NUM_STANDBY_REPLICAS: '1' })).toMatchObject({ numStandbyReplicas: 1 });
    expect(parseWordCountArgs([], {})).toMatchObject({ numStandbyReplicas: undefined });
    expect(parseError(['--num-standby-replicas=x'])).toBe(
      '--num-standby-replicas must be a number of standby replicas (an integer from 0 to 10), got "x"',
    );
  });

  it('names the flag or variable at fault and what a good value looks like', () => {
    expect(parseError(['--guarantee', 'exactly-once'])).toBe(
      '--guarantee must be at_least_once, exactly_once or exactly_once_v2, got "exactly-once"',
    );
    expect(parseError([], { PORT: '70000' })).toBe(
      'PORT (environment) must be a TCP port (an integer from 0 to 65535), got "70000"',
    );
    expect(parseError(['--commit-interval-ms', '1.5'])).toMatch(
      /^--commit-interval-ms must be a number of milliseconds/,
    );
    expect(parseError(['--commit-interval-ms', '0'])).toMatch(/from 1 to/);
    expect(parseError(['--brokers', 'localhost'])).toMatch(
      /--brokers must be a comma-separated list of host:port/,
    );
    expect(parseError(['--input', 'has space'])).toMatch(/--input must be a topic name of 1 to 249 letters/);
    expect(parseError(['--application-id', '..'])).toMatch(/--application-id must be an application id/);
    expect(parseError(['--log-level', 'loud'])).toMatch(/--log-level must be one of fatal, error/);
    expect(parseError(['--input', 'same', '--output', 'same'])).toBe(
      'the input and output topics must differ, both are "same"',
    );
  });

  it('rejects unknown flags, missing values, repeats and stray arguments', () => {
    expect(parseError(['--topic', 'x'])).toMatch(
      /^unknown flag --topic; the flags are: --brokers, --application-id/,
    );
    expect(parseError(['--port'])).toBe('--port needs a value (see --help)');
    expect(parseError(['--port', '--brokers', 'a:1'])).toBe('--port needs a value (see --help)');
    expect(parseError(['--port', '1', '--port', '2'])).toBe('--port is given twice');
    expect(parseError(['book.txt'])).toMatch(/unexpected argument "book.txt": this command takes only flags/);
  });

  it('answers --help and -h, even after a bad value', () => {
    expect(parseWordCountArgs(['--port', 'x', '--help'], {})).toBe('help');
    expect(parseWordCountArgs(['-h'], {})).toBe('help');
  });

  it('feeder: an optional file plus --brokers, --input and --partitions', () => {
    expect(parseFeedArgs(['my.txt', '--input', 'lines'], { KAFKA_BROKERS: 'k:1' })).toEqual({
      file: 'my.txt',
      brokers: ['k:1'],
      input: 'lines',
      partitions: 4,
    });
    expect(parseFeedArgs([], {})).toMatchObject({ file: undefined, input: 'text-input' });
    expect(() => parseFeedArgs(['a.txt', 'b.txt'], {})).toThrow(/takes at most 1/);
    expect(() => parseFeedArgs(['--output', 'x'], {})).toThrow(/unknown flag --output/);
  });

  it('the command exits with code 2 and the message on a bad flag, before touching Kafka', () => {
    const result = spawnSync(
      join(root, 'node_modules', '.bin', 'tsx'),
      ['packages/examples/src/word-count/main.ts', '--guarantee', 'maybe'],
      { cwd: root, encoding: 'utf8', env: { ...process.env, KAFKA_BROKERS: '' } },
    );
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(
      'word-count: --guarantee must be at_least_once, exactly_once or exactly_once_v2, got "maybe"',
    );
    expect(result.stdout).toBe('');
  });
});

describe('demo flags and paths', () => {
  it('feeds Genesis from the shipped book by default, a whole --text file, or --lines N of either', () => {
    expect(parseDemoArgs([], {}, '/book.txt')).toEqual({ text: '/book.txt', lines: GENESIS_LINES });
    expect(parseDemoArgs(['--lines', 'all'], {}, '/book.txt')).toEqual({
      text: '/book.txt',
      lines: undefined,
    });
    expect(parseDemoArgs(['--text=notes.txt'], { INIT_CWD: '/home/me' }, '/book.txt')).toEqual({
      text: '/home/me/notes.txt',
      lines: undefined,
    });
    expect(parseDemoArgs([], { DEMO_LINES: '100' }, '/book.txt')).toEqual({ text: '/book.txt', lines: 100 });
    expect(() => parseDemoArgs(['--lines', '0'], {}, '/b')).toThrow(
      '--lines (DEMO_LINES) must be a positive whole number or "all", got "0"',
    );
    expect(() => parseDemoArgs(['--fast'], {}, '/b')).toThrow(UsageError);
  });

  it('resolves a relative path against the directory the user ran pnpm/npm in', () => {
    expect(userPath('data/x.txt', { INIT_CWD: '/work/here' })).toBe('/work/here/data/x.txt');
    expect(userPath('/abs/x.txt', { INIT_CWD: '/work/here' })).toBe('/abs/x.txt');
  });
});
