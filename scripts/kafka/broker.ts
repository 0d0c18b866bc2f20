// A single-node KRaft broker for development and tests, run from Apache Kafka's own jars
// (resolved from Maven Central by `mvn`), so that no Docker engine is needed.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kafka, type KafkaConfig, logLevel } from 'kafkajs';
import {
  checkSecureOptions,
  ensureTls,
  type SecureOptions,
  scramFormatArgs,
  secureClientConfig,
  secureProperties,
} from './secure.ts';

/** The one place the Kafka version is pinned (docker-compose.yml is checked against it by a test). */
export const KAFKA_VERSION = '4.4.0';

const here = dirname(fileURLToPath(import.meta.url));

export interface BrokerPaths {
  libs: string;
  home: string;
  data: string;
  config: string;
  log: string;
  pid: string;
}

export interface BrokerOptions {
  host: string;
  port: number;
  controllerPort: number;
  cacheDir: string;
  /**
   * A second listener for clients that reach the broker through something in between (a test's
   * fault-injecting proxy): it listens on `port` and tells clients to connect to
   * `advertisedPort`. The main listener stays as it is, for the broker's own connections.
   */
  clientListener?: { port: number; advertisedPort: number };
  /**
   * A secure broker instead: SASL/SCRAM-SHA-512 over TLS on `port`, ACLs enforced. Its home is
   * `broker-<port>-secure`, apart from any plain broker's.
   */
  secure?: SecureOptions;
}

export class BrokerError extends Error {
  override name = 'BrokerError';
}

export function brokerOptions(env: NodeJS.ProcessEnv = process.env): BrokerOptions {
  const port = Number(env.KAFKA_PORT ?? 9092);
  const controllerPort = Number(env.KAFKA_CONTROLLER_PORT ?? port + 1);
  for (const [key, value] of [
    ['KAFKA_PORT', port],
    ['KAFKA_CONTROLLER_PORT', controllerPort],
  ] as const) {
    if (!Number.isInteger(value) || value <= 0 || value > 65535) {
      throw new BrokerError(`${key} must be a TCP port number (1-65535), got "${env[key]}"`);
    }
  }
  const cacheRoot = env.XDG_CACHE_HOME ?? join(homedir(), '.cache');
  return { host: '127.0.0.1', port, controllerPort, cacheDir: join(cacheRoot, 'kstreams') };
}

export function brokerPaths(opts: BrokerOptions): BrokerPaths {
  const home = join(opts.cacheDir, `broker-${opts.port}${opts.secure ? '-secure' : ''}`);
  return {
    libs: join(opts.cacheDir, `kafka-${KAFKA_VERSION}`, 'libs'),
    home,
    data: join(home, 'data'),
    config: join(home, 'server.properties'),
    log: join(home, 'broker.log'),
    pid: join(home, 'broker.pid'),
  };
}

export const bootstrapAddress = (opts: BrokerOptions) => `${opts.host}:${opts.port}`;

/** Fetches the broker jars once; later starts find them in the cache and need no network. */
export function ensureJars(paths: BrokerPaths, log: (msg: string) => void = console.log): void {
  if (existsSync(join(paths.libs, `kafka_2.13-${KAFKA_VERSION}.jar`))) return;
  log(`Fetching Apache Kafka ${KAFKA_VERSION} jars from Maven Central into ${paths.libs} ...`);
  mkdirSync(paths.libs, { recursive: true });
  try {
    execFileSync(
      'mvn',
      [
        '-q',
        '-B',
        '-f',
        join(here, 'pom.xml'),
        'dependency:copy-dependencies',
        `-Dkafka.version=${KAFKA_VERSION}`,
        `-DoutputDirectory=${paths.libs}`,
      ],
      { stdio: ['ignore', 'inherit', 'inherit'] },
    );
  } catch (err) {
    rmSync(paths.libs, { recursive: true, force: true });
    throw new BrokerError(
      `Could not fetch Kafka's jars with mvn (${(err as Error).message}). Install Java 17 and Maven, ` +
        'or use Docker (docker compose up -d) and set KAFKA_BROKERS=127.0.0.1:9092.',
    );
  }
}

function plainListeners(opts: BrokerOptions): string {
  const client = opts.clientListener;
  return `listeners=PLAINTEXT://${opts.host}:${opts.port},CONTROLLER://${opts.host}:${opts.controllerPort}${client ? `,CLIENT://${opts.host}:${client.port}` : ''}
advertised.listeners=PLAINTEXT://${opts.host}:${opts.port}${client ? `,CLIENT://${opts.host}:${client.advertisedPort}` : ''}
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,CLIENT:PLAINTEXT
`;
}

function serverProperties(opts: BrokerOptions, paths: BrokerPaths): string {
  const listeners = opts.secure
    ? secureProperties(opts, opts.secure, ensureTls(paths.home))
    : plainListeners(opts);
  return `# Written by scripts/kafka/broker.ts; rewritten at every start.
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@${opts.host}:${opts.controllerPort}
controller.listener.names=CONTROLLER
${listeners}log.dirs=${paths.data}
num.partitions=1
auto.create.topics.enable=false
group.initial.rebalance.delay.ms=0
offsets.topic.replication.factor=1
offsets.topic.num.partitions=10
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=10
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.min.session.timeout.ms=3000
transaction.abort.timed.out.transaction.cleanup.interval.ms=2000
log.retention.hours=24
`;
}

const LOG4J2 = `status = warn
appender.console.type = Console
appender.console.name = STDOUT
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = INFO
rootLogger.appenderRef.stdout.ref = STDOUT
logger.kafka.name = kafka
logger.kafka.level = INFO
logger.state.name = state.change.logger
logger.state.level = WARN
`;

export function readPid(paths: BrokerPaths): number | undefined {
  if (!existsSync(paths.pid)) return undefined;
  const pid = Number(readFileSync(paths.pid, 'utf8').trim());
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/** True when `pid` is alive and is the broker JVM we started (not a recycled pid). */
export function isOurBroker(pid: number, paths: BrokerPaths): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return cmdline.includes(paths.config);
  } catch {
    return true; // no /proc: trust the pid file
  }
}

function portInUse(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(true));
    server.listen(port, host, () => server.close(() => resolve(false)));
  });
}

function portAnswers(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export async function waitUntilReady(
  brokers: string[],
  timeoutMs: number,
  isAlive: () => boolean,
  client: Partial<KafkaConfig> = {},
) {
  const kafka = new Kafka({ ...client, brokers, logLevel: logLevel.NOTHING, retry: { retries: 0 } });
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (!isAlive()) throw new BrokerError('the broker process exited while starting');
    const admin = kafka.admin();
    try {
      await admin.connect();
      await admin.listTopics();
      return;
    } catch (err) {
      lastError = err;
    } finally {
      await admin.disconnect().catch(() => {});
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new BrokerError(`the broker did not answer within ${timeoutMs} ms: ${String(lastError)}`);
}

export interface StartResult {
  brokers: string;
  started: boolean;
}

export async function start(opts = brokerOptions(), log: (msg: string) => void = console.log) {
  const paths = brokerPaths(opts);
  const address = bootstrapAddress(opts);
  const running = readPid(paths);
  if (running !== undefined && isOurBroker(running, paths)) {
    return { brokers: address, started: false } satisfies StartResult;
  }
  for (const port of [opts.port, opts.controllerPort]) {
    if ((await portInUse(opts.host, port)) || (await portAnswers(opts.host, port))) {
      throw new BrokerError(
        `port ${port} on ${opts.host} is already in use by another process. Stop it, or choose other ports ` +
          `with KAFKA_PORT=<port> (the controller uses KAFKA_CONTROLLER_PORT, default KAFKA_PORT+1); ` +
          `to use a broker that is already running, set KAFKA_BROKERS=host:port instead.`,
      );
    }
  }
  if (opts.secure) checkSecureOptions(opts.secure);
  ensureJars(paths, log);
  mkdirSync(paths.data, { recursive: true });
  writeFileSync(paths.config, serverProperties(opts, paths));
  const log4j = join(paths.home, 'log4j2.properties');
  writeFileSync(log4j, LOG4J2);
  const classpath = `${paths.libs}/*`;
  const jvm = ['-Xms256m', '-Xmx1g', '-XX:+UseG1GC', `-Dlog4j2.configurationFile=${log4j}`, '-cp', classpath];
  if (!existsSync(join(paths.data, 'meta.properties'))) {
    const clusterId = execFileSync('java', [...jvm, 'kafka.tools.StorageTool', 'random-uuid'], {
      encoding: 'utf8',
    }).trim();
    const scram = opts.secure ? scramFormatArgs(opts.secure) : [];
    execFileSync(
      'java',
      [...jvm, 'kafka.tools.StorageTool', 'format', '-t', clusterId, '-c', paths.config, ...scram],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
  }
  const out = openSync(paths.log, 'a');
  const child = spawn('java', [...jvm, 'kafka.Kafka', paths.config], {
    detached: true,
    stdio: ['ignore', out, out],
  });
  if (child.pid === undefined) throw new BrokerError('could not start java: is Java 17 installed?');
  writeFileSync(paths.pid, String(child.pid));
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  child.unref();
  try {
    const client = opts.secure ? brokerClientConfig(opts, opts.secure.superUser) : {};
    await waitUntilReady([address], 90_000, () => !exited, client);
  } catch (err) {
    throw new BrokerError(`${(err as Error).message}; see its log: ${paths.log}`);
  }
  return { brokers: address, started: true } satisfies StartResult;
}

/** The ssl and sasl settings that reach a secure broker as `user` (its CA, SCRAM-SHA-512). */
export function brokerClientConfig(opts: BrokerOptions, user: string) {
  if (!opts.secure) throw new BrokerError('this broker is not secure: it needs no ssl or sasl settings');
  return secureClientConfig(ensureTls(brokerPaths(opts).home), opts.secure, user);
}

/** Stops only the broker that `start` started (by its pid file); `clean` also removes its data. */
export async function stop(opts = brokerOptions(), { clean = false } = {}): Promise<boolean> {
  const paths = brokerPaths(opts);
  const pid = readPid(paths);
  let stopped = false;
  if (pid !== undefined && isOurBroker(pid, paths)) {
    process.kill(pid, 'SIGTERM');
    const deadline = Date.now() + 30_000;
    while (isOurBroker(pid, paths) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    if (isOurBroker(pid, paths)) process.kill(pid, 'SIGKILL');
    while (isOurBroker(pid, paths)) await new Promise((r) => setTimeout(r, 100));
    stopped = true;
  }
  rmSync(paths.pid, { force: true });
  if (clean) rmSync(paths.home, { recursive: true, force: true });
  return stopped;
}

export function status(opts = brokerOptions()): { running: boolean; pid?: number; brokers: string } {
  const paths = brokerPaths(opts);
  const pid = readPid(paths);
  const brokers = bootstrapAddress(opts);
  return pid !== undefined && isOurBroker(pid, paths)
    ? { running: true, pid, brokers }
    : { running: false, brokers };
}
