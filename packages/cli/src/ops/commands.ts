// The operating commands on the `kstreams` program: reset, lag, describe.
import { type Command, Option } from 'commander';
import { Kafka } from 'kafkajs';
import { type AclNeed, clientConfig, type KafkaCall, kafkaCall } from '../security/kafka-call.ts';
import { addSecurityOptions, securityOf } from '../security/options.ts';
import { describeFile, loadTopology } from './describe.ts';
import { formatLag, groupLag, NoGroupLagError } from './lag.ts';
import { ActiveMembersError, resetApplication } from './reset.ts';
import { parseDatetime, parseDuration, type ResetTarget } from './reset-time.ts';

interface Io {
  out: (s: string) => void;
  err: (s: string) => void;
}

const list = (v: string) =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
const defaultBrokers = process.env.KAFKA_BROKERS ?? '127.0.0.1:9092';

async function withAdmin<T>(
  call: KafkaCall,
  run: (admin: ReturnType<Kafka['admin']>) => Promise<T>,
): Promise<T> {
  const kafka = new Kafka({
    clientId: 'kstreams-cli',
    brokers: call.brokers,
    ...clientConfig(call),
  });
  const admin = kafka.admin();
  await admin.connect();
  try {
    return await run(admin);
  } finally {
    await admin.disconnect();
  }
}

function target(opts: Record<string, unknown>): ResetTarget {
  const picked = ['toEarliest', 'toLatest', 'toDatetime', 'byDuration'].filter((k) => opts[k] !== undefined);
  if (picked.length > 1)
    throw new Error('give only one of --to-earliest, --to-latest, --to-datetime, --by-duration');
  if (opts.toLatest) return { kind: 'latest' };
  if (typeof opts.toDatetime === 'string') return { kind: 'timestamp', ms: parseDatetime(opts.toDatetime) };
  if (typeof opts.byDuration === 'string')
    return { kind: 'timestamp', ms: Date.now() - parseDuration(opts.byDuration) };
  return { kind: 'earliest' };
}

/** The ACLs `reset` needs (a dry run only looks). */
function resetNeeds(applicationId: string, topics: string[], dryRun: boolean): AclNeed[] {
  const write = dryRun ? [] : ['Read'];
  return [
    { resourceType: 'Group', name: applicationId, pattern: 'literal', operations: [...write, 'Describe'] },
    ...topics.map(
      (name): AclNeed => ({
        resourceType: 'Topic',
        name,
        pattern: 'literal',
        operations: [...write, 'Describe'],
      }),
    ),
    {
      resourceType: 'Topic',
      name: `${applicationId}-`,
      pattern: 'prefixed',
      operations: dryRun ? ['Describe'] : ['Delete', 'Describe'],
    },
  ];
}

/**
 * Adds the commands; `setCode` takes the exit code (0 done, 1 refused, 2 usage or broker error);
 * `calls.current` says what the running command asks of Kafka, to explain a refusal.
 */
export function addOpsCommands(
  program: Command,
  io: Io,
  env: NodeJS.ProcessEnv,
  calls: { current?: KafkaCall },
  setCode: (code: number) => void,
): void {
  const reset = program
    .command('reset')
    .description("Reset an app for reprocessing, as Kafka Streams' application reset tool")
    .requiredOption('--application-id <id>', 'the application id (= consumer group id)')
    .option('-b, --brokers <list>', 'bootstrap brokers, comma separated', defaultBrokers)
    .option('--input-topics <list>', 'input topics whose offsets go back', list, [])
    .option(
      '--intermediate-topics <list>',
      'user topics the app writes and reads: skipped to their end',
      list,
      [],
    )
    .addOption(new Option('--to-earliest', 'reset to the earliest offset (default)'))
    .addOption(new Option('--to-latest', 'reset to the latest offset'))
    .addOption(new Option('--to-datetime <datetime>', 'reset to the first offset at yyyy-MM-ddTHH:mm:SS.sss'))
    .addOption(new Option('--by-duration <duration>', 'reset to now minus an ISO-8601 duration (PT5M)'))
    .option('--topology <file>', 'a module with the topology: its internal topics are deleted too')
    .option('--local-state <dir>', 'the state dir: <dir>/<application id> is deleted')
    .option('--dry-run', 'print every action, change nothing');
  addSecurityOptions(reset).action(async (opts) => {
    const t = target(opts);
    const security = securityOf(opts, io.err, env);
    const named = opts.topology
      ? (await loadTopology(opts.topology))
          .subtopologies(opts.applicationId)
          .flatMap((s) => [
            ...s.repartitionSourceTopics,
            ...s.stores.flatMap((st) => st.changelogTopic ?? []),
          ])
      : [];
    calls.current = kafkaCall({
      command: 'reset',
      brokers: list(opts.brokers),
      security,
      needs: resetNeeds(
        opts.applicationId,
        [...opts.inputTopics, ...opts.intermediateTopics],
        opts.dryRun === true,
      ),
    });
    try {
      const lines = await withAdmin(calls.current, (admin) =>
        resetApplication(admin, {
          applicationId: opts.applicationId,
          inputTopics: opts.inputTopics,
          intermediateTopics: opts.intermediateTopics,
          target: t,
          localState: opts.localState,
          topologyInternalTopics: named,
          dryRun: opts.dryRun === true,
        }),
      );
      io.out(`${lines.join('\n')}\n${opts.dryRun ? 'dry run: nothing changed' : 'reset done'}\n`);
    } catch (e) {
      if (!(e instanceof ActiveMembersError)) throw e;
      io.err(`kstreams reset: ${e.message}\n`);
      setCode(1);
    }
  });
  const lag = program
    .command('lag')
    .description("Per input and repartition partition of the app's group: committed, end, lag, owner")
    .requiredOption('--application-id <id>', 'the application id (= consumer group id)')
    .option('-b, --brokers <list>', 'bootstrap brokers, comma separated', defaultBrokers)
    .option('--json', 'print the rows as JSON');
  addSecurityOptions(lag).action(async (opts) => {
    const security = securityOf(opts, io.err, env);
    const id: string = opts.applicationId;
    calls.current = kafkaCall({
      command: 'lag',
      brokers: list(opts.brokers),
      security,
      needs: [
        { resourceType: 'Group', name: id, pattern: 'literal', operations: ['Describe'] },
        { resourceType: 'Topic', name: '<input topic>', pattern: 'literal', operations: ['Describe'] },
        { resourceType: 'Topic', name: `${id}-`, pattern: 'prefixed', operations: ['Describe'] },
      ],
    });
    let rows: Awaited<ReturnType<typeof groupLag>>;
    try {
      rows = await withAdmin(calls.current, (admin) => groupLag(admin, id));
    } catch (e) {
      if (!(e instanceof NoGroupLagError)) throw e;
      io.err(`kstreams lag: ${e.message}\n`);
      setCode(1);
      return;
    }
    io.out(opts.json ? `${JSON.stringify(rows, null, 2)}\n` : `${formatLag(rows)}\n`);
  });
  program
    .command('describe')
    .description('Print the topology a module exports (default, topology or builder) as Kafka Streams does')
    .argument('<file>', 'a .ts or .js module')
    .option('--mermaid', 'print a Mermaid flowchart instead')
    .action(async (file: string, opts) => {
      io.out(`${(await describeFile(file, opts.mermaid === true)).trimEnd()}\n`);
    });
}
