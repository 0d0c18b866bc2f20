// A real Schema Registry for tests and demos: Apicurio Registry (in-memory H2 storage) built from
// its jars on Maven Central by scripts/registry/pom.xml and run as a child JVM on a free port.
// Clients talk to its Confluent-compatible API (`<url>/apis/ccompat/v7`). See docs/decisions.md for
// why Apicurio 2.4.2 (the 3.x modules and Karapace cannot be had from the registries reached here).
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, openSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../test/free-port.ts';

export const APICURIO_VERSION = '2.4.2.Final';
const here = dirname(fileURLToPath(import.meta.url));

export class RegistryError extends Error {
  override name = 'RegistryError';
}

export function registryHome(env: NodeJS.ProcessEnv = process.env): string {
  const cacheRoot = env.XDG_CACHE_HOME ?? join(homedir(), '.cache');
  return join(cacheRoot, 'kstreams', `apicurio-${APICURIO_VERSION}`);
}

function runnerJar(home: string): string {
  return join(home, 'target', 'kstreams-apicurio-registry-0-runner.jar');
}

/** Builds the runnable registry once into the cache (about a minute the first time). */
export function ensureRegistryBuilt(home = registryHome(), log: (m: string) => void = console.log) {
  if (existsSync(runnerJar(home))) return runnerJar(home);
  log(`Building Apicurio Registry ${APICURIO_VERSION} from Maven Central into ${home} ...`);
  mkdirSync(home, { recursive: true });
  cpSync(join(here, 'pom.xml'), join(home, 'pom.xml'));
  cpSync(join(here, 'src'), join(home, 'src'), { recursive: true });
  try {
    execFileSync('mvn', ['-q', '-B', '-f', join(home, 'pom.xml'), 'package', '-DskipTests'], {
      stdio: ['ignore', 'inherit', 'inherit'],
    });
  } catch (err) {
    rmSync(join(home, 'target'), { recursive: true, force: true });
    throw new RegistryError(
      `Could not build Apicurio Registry with mvn (${(err as Error).message}). Install Java 17 and ` +
        'Maven, or run a registry yourself (docker compose up -d) and set SCHEMA_REGISTRY_URL.',
    );
  }
  return runnerJar(home);
}

export interface RunningRegistry {
  /** The Confluent-compatible base URL, e.g. http://127.0.0.1:41234/apis/ccompat/v7 */
  url: string;
  port: number;
  process: ChildProcess;
  stop(): Promise<void>;
}

async function answers(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/subjects`, { signal: AbortSignal.timeout(2_000) });
    return res.ok;
  } catch {
    return false;
  }
}

/** Starts a registry on `port` (a free one by default) and resolves once its API answers. */
export async function startRegistry(
  opts: {
    port?: number;
    timeoutMs?: number;
    log?: (m: string) => void;
    /** Keep the schemas in an H2 file here, so that a restart on it finds them (default: in memory). */
    dataDir?: string;
  } = {},
): Promise<RunningRegistry> {
  const jar = ensureRegistryBuilt(registryHome(), opts.log);
  const port = opts.port ?? (await freePort());
  const logFile = join(registryHome(), `registry-${port}.log`);
  const out = openSync(logFile, 'w');
  const child = spawn(
    'java',
    [
      '-Xmx512m',
      '-XX:TieredStopAtLevel=1',
      `-Dquarkus.http.port=${port}`,
      '-Dquarkus.http.host=127.0.0.1',
      '-Dquarkus.log.level=WARN',
      ...(opts.dataDir === undefined
        ? []
        : [`-Dquarkus.datasource.jdbc.url=jdbc:h2:file:${join(opts.dataDir, 'registry')}`]),
      '-jar',
      jar,
    ],
    { stdio: ['ignore', out, out] },
  );
  const url = `http://127.0.0.1:${port}/apis/ccompat/v7`;
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  const deadline = Date.now() + (opts.timeoutMs ?? 120_000);
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new RegistryError(`the registry exited while starting (code ${child.exitCode}); see ${logFile}`);
    }
    if (await answers(url)) return { url, port, process: child, stop };
    await new Promise((r) => setTimeout(r, 300));
  }
  await stop();
  throw new RegistryError(`the registry did not answer at ${url} within the timeout; see ${logFile}`);
}
