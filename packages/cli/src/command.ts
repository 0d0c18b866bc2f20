// The `kstreams` command line (commander): `kstreams verify`, and reset, lag, describe (ops/).
import { Command, InvalidArgumentError, Option } from 'commander';
import { formatReport } from './format.ts';
import { addOpsCommands } from './ops/commands.ts';
import { VALUE_FORMATS, type ValueFormat } from './values.ts';
import { verifyTopic } from './verify.ts';

const positiveInt = (what: string) => (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError(`${what} must be a positive integer`);
  return n;
};

export interface Io {
  out: (s: string) => void;
  err: (s: string) => void;
}

/** Runs the command line and returns the exit code: 0 clean, 1 findings, 2 usage or read error. */
export async function runCli(argv: string[], io: Io = defaultIo): Promise<number> {
  let code = 0;
  const program = new Command('kstreams')
    .description('Tools for kstreams apps')
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err });
  program
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
      'per key, values must be 1..n with no repeat and no gap (an exactly_once count)',
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
    .option('--json', 'print the report as JSON')
    .action(async (topic: string, opts) => {
      const report = await verifyTopic({
        brokers: opts.brokers,
        topic,
        expectSequences: opts.expectSequences === true,
        against: opts.against,
        valueFormat: opts.valueFormat as ValueFormat,
        idleMs: opts.idleMs,
        timeoutMs: opts.timeoutMs,
        maxExamples: opts.examples,
      });
      io.out(opts.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatReport(report)}\n`);
      code = report.ok ? 0 : 1;
    });
  addOpsCommands(program, io, (c) => {
    code = c;
  });
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (e) {
    const err = e as { code?: string; exitCode?: number; message: string };
    // commander has already printed its own usage errors and help.
    if (err.code?.startsWith('commander.')) return err.exitCode === 0 ? 0 : 2;
    io.err(`kstreams: ${err.message}\n`);
    return 2;
  }
  return code;
}

const defaultIo: Io = {
  out: (s) => process.stdout.write(s),
  err: (s) => process.stderr.write(s),
};
