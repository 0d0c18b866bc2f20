// The `kstreams` command line (commander): `kstreams verify`, and reset, lag, describe (ops/).
import { Command, InvalidArgumentError, Option } from 'commander';
import { isFile } from './expected.ts';
import { formatReport } from './format.ts';
import { addOpsCommands } from './ops/commands.ts';
import { clientConfig, type KafkaCall, kafkaCall } from './security/kafka-call.ts';
import { addSecurityOptions, securityOf } from './security/options.ts';
import { reportError } from './security/report.ts';
import { VALUE_FORMATS, type ValueFormat } from './values.ts';
import { brokerList, verifyTopic } from './verify.ts';

const positiveInt = (what: string) => (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError(`${what} must be a positive integer`);
  return n;
};

export interface Io {
  out: (s: string) => void;
  err: (s: string) => void;
}

/**
 * Runs the command line and returns the exit code: 0 clean, 1 findings or a refusal by the
 * cluster (credentials, certificate, ACLs), 2 usage or read error.
 */
export async function runCli(
  argv: string[],
  io: Io = defaultIo,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  let code = 0;
  // What the running command asked of Kafka, to explain a refusal.
  const calls: { current?: KafkaCall } = {};
  const program = new Command('kstreams')
    .description('Tools for kstreams apps')
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err });
  const verify = program
    .command('verify')
    .description(
      'Read a topic read_committed and check it for duplicates, gaps and losses; exits 1 on any finding',
    )
    .argument('<topic>', 'the topic to check')
    .option(
      '-b, --brokers <list>',
      'bootstrap brokers, comma separated',
      process.env.KAFKA_BROKERS ?? '127.0.0.1:9092',
    )
    .option(
      '--expect-sequences',
      'per key, values must be 1..n with no repeat and no gap: an exactly_once count with every update written (statestoreCacheMaxBytes: 0)',
    )
    .option(
      '--expect-increasing',
      'per key, values must increase strictly: a count written through the record cache (the default), which skips values; a repeat or a decrease is a duplicate',
    )
    .option(
      '--no-expect-increasing',
      'with --against alone, compare only the last value per key (by default counts must also increase)',
    )
    .option(
      '--against <fileOrTopic>',
      'expected final value per key: a file (JSON or key<TAB>value lines) or a topic',
    )
    .addOption(
      new Option('--value-format <format>', 'how values are decoded').choices(VALUE_FORMATS).default('auto'),
    )
    .option('--idle-ms <ms>', 'stop reading after this long without a record', positiveInt('--idle-ms'), 3000)
    .option('--timeout-ms <ms>', 'give up reading after this long', positiveInt('--timeout-ms'), 120_000)
    .option('--examples <n>', 'example keys per kind of finding', positiveInt('--examples'), 5)
    .option('--json', 'print the report as JSON');
  addSecurityOptions(verify).action(async (topic: string, opts) => {
    const security = securityOf(opts, io.err, env);
    const topics = [
      topic,
      ...(typeof opts.against === 'string' && !isFile(opts.against) ? [opts.against] : []),
    ];
    calls.current = kafkaCall({
      command: 'verify',
      brokers: brokerList(opts.brokers),
      security,
      needs: [
        ...topics.map((name) => ({
          resourceType: 'Topic' as const,
          name,
          pattern: 'literal' as const,
          operations: ['Read', 'Describe'],
        })),
        // Each read joins a group of its own, `kstreams-verify-<random>`.
        { resourceType: 'Group', name: 'kstreams-verify-', pattern: 'prefixed', operations: ['Read'] },
      ],
    });
    const report = await verifyTopic({
      brokers: opts.brokers,
      kafkaConfig: clientConfig(calls.current),
      topic,
      expectSequences: opts.expectSequences === true,
      expectIncreasing: opts.expectIncreasing as boolean | undefined,
      against: opts.against,
      valueFormat: opts.valueFormat as ValueFormat,
      idleMs: opts.idleMs,
      timeoutMs: opts.timeoutMs,
      maxExamples: opts.examples,
    });
    io.out(opts.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatReport(report)}\n`);
    code = report.ok ? 0 : 1;
  });
  addOpsCommands(program, io, env, calls, (c) => {
    code = c;
  });
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (e) {
    const err = e as { code?: string; exitCode?: number; message: string };
    // commander has already printed its own usage errors and help.
    if (err.code?.startsWith('commander.')) return err.exitCode === 0 ? 0 : 2;
    return reportError(e, calls.current, io.err);
  }
  return code;
}

const defaultIo: Io = {
  out: (s) => process.stdout.write(s),
  err: (s) => process.stderr.write(s),
};
