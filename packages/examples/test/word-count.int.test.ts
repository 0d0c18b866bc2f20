// Two instances of the word-count app as child processes, sharing one application id: every
// word's count is right on either instance, whichever of them owns the word.
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../scripts/test/free-port.ts';
import { testBrokers, testKafka, topicsForThisFile, uniqueName } from '../../../scripts/test/kafka.ts';
import { feederProducer } from '../src/common/kafka.ts';
import { BOOK_PATH, feedLines, readLines } from '../src/word-count/feeder.ts';
import { wordsOf } from '../src/word-count/words.ts';

const root = join(import.meta.dirname, '..', '..', '..');
const LINES = 1_500;
const LOG_DIR = join(tmpdir(), 'kstreams-child-logs');

interface Instance {
  child: ChildProcess;
  port: number;
  output: string[];
  exited: Promise<number | null>;
}

function logsOf(instances: Instance[]): string {
  return `--- instance logs ---\n${instances.map((i) => i.output.join('')).join('\n')}`;
}

async function getJson(
  port: number,
  path: string,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(10_000) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function eventually<T>(
  what: string,
  timeoutMs: number,
  attempt: () => Promise<T | undefined>,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await attempt();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline)
      throw new Error(`${what} did not happen within ${timeoutMs} ms (${String(last)})`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

describe('word-count: two instances answer interactive queries', () => {
  const topics = topicsForThisFile();
  const applicationId = uniqueName('wc-int');
  const input = `${applicationId}-text`;
  const output = `${applicationId}-counts`;
  const stateRoot = mkdtempSync(join(tmpdir(), 'wc-int-'));
  const instances: Instance[] = [];
  const truth = new Map<string, number>();

  function startInstance(index: number, port: number): Instance {
    const child = spawn(
      join(root, 'node_modules', '.bin', 'tsx'),
      [
        'packages/examples/src/word-count/main.ts',
        '--brokers',
        testBrokers().join(','),
        '--application-id',
        applicationId,
        '--input',
        input,
        '--output',
        output,
        '--state-dir',
        join(stateRoot, `instance-${index}`),
        '--port',
        String(port),
        '--guarantee',
        'exactly_once',
      ],
      { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LOG_LEVEL: 'info' } },
    );
    const out: string[] = [];
    // Also to a file: a failure's message carries the output, but vitest may cut it short.
    mkdirSync(LOG_DIR, { recursive: true });
    const log = createWriteStream(join(LOG_DIR, `${applicationId}-${index}.log`));
    for (const stream of [child.stdout, child.stderr]) {
      stream?.on('data', (d: Buffer) => {
        out.push(d.toString());
        log.write(d);
      });
    }
    child.once('exit', () => log.end());
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    return { child, port, output: out, exited };
  }

  beforeAll(async () => {
    topics.cleanUpPrefix(applicationId);
    const ports = [await freePort(), await freePort()];
    instances.push(startInstance(0, ports[0]!), startInstance(1, ports[1]!));
    // RUNNING (/health is 200 only then): the second instance is RUNNING only
    // once it has joined the group and got its half of the tasks, which the test relies on.
    for (const instance of instances) {
      await eventually(`instance on port ${instance.port} RUNNING`, 120_000, async () => {
        if (instance.child.exitCode !== null) throw new Error(`exited with ${instance.child.exitCode}`);
        const health = await getJson(instance.port, '/health');
        // Thrown, so that a timeout reports the state the instance was last seen in.
        if (health.body.status !== 'RUNNING') throw new Error(`status ${String(health.body.status)}`);
        return health;
      }).catch((error) => {
        throw new Error(`${error.message}\n${logsOf(instances)}`);
      });
    }
    const lines: string[] = [];
    for await (const line of readLines(BOOK_PATH)) {
      if (lines.length === LINES) break;
      lines.push(line);
    }
    for (const word of lines.flatMap(wordsOf)) truth.set(word, (truth.get(word) ?? 0) + 1);
    const producer = feederProducer(testKafka('wc-int-feeder'));
    await producer.connect();
    await feedLines(producer, input, lines, { batchSize: 250 });
    await producer.disconnect();
  });

  afterAll(async () => {
    for (const instance of instances) {
      if (instance.child.exitCode === null && instance.child.signalCode === null)
        instance.child.kill('SIGKILL');
      await instance.exited;
    }
    rmSync(stateRoot, { recursive: true, force: true });
  });

  it('GET /counts/:word on either instance returns the true count, forwarding to the owner when needed', async () => {
    const ranked = [...truth].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    // The most frequent words (last to settle) and a spread of rarer ones.
    const sample = [...ranked.slice(0, 10), ...ranked.filter((_, i) => i % 97 === 5).slice(0, 15)];
    const owners = new Set<unknown>();
    for (const [word, count] of sample) {
      for (const instance of instances) {
        const reply = await eventually(`count of "${word}" on port ${instance.port}`, 120_000, async () => {
          const r = await getJson(instance.port, `/counts/${word}`);
          return r.status === 200 && r.body.count === count ? r : undefined;
        }).catch((error) => {
          throw new Error(`${error.message}\n${logsOf(instances)}`);
        });
        expect(reply.body).toMatchObject({ word, count });
        owners.add(reply.body.host);
      }
    }
    // Both instances own some of the words, so both answered some requests by forwarding.
    expect(owners, logsOf(instances)).toEqual(new Set(instances.map((i) => `127.0.0.1:${i.port}`)));
  });

  it('a word that is not in the text is a 404 with a JSON body on both instances', async () => {
    for (const instance of instances) {
      const reply = await getJson(instance.port, '/counts/kafkaesque');
      expect(reply.status).toBe(404);
      expect(reply.body).toMatchObject({ error: 'not_found', word: 'kafkaesque' });
    }
  });

  it('GET /counts?top=5 gathers from both instances and matches the text', async () => {
    const expected = [...truth]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, 5)
      .map(([word, count]) => ({ word, count }));
    for (const instance of instances) {
      const reply = await getJson(instance.port, '/counts?top=5');
      expect(reply.status).toBe(200);
      expect(reply.body.top).toEqual(expected);
      expect(new Set(reply.body.instances as string[])).toEqual(
        new Set(instances.map((i) => `127.0.0.1:${i.port}`)),
      );
    }
    const bad = await getJson(instances[0]!.port, '/counts?top=many');
    expect(bad.status).toBe(400);
  });

  it('stops cleanly on SIGTERM and SIGINT (exit code 0)', async () => {
    instances[0]!.child.kill('SIGTERM');
    instances[1]!.child.kill('SIGINT');
    expect(await instances[0]!.exited).toBe(0);
    expect(await instances[1]!.exited).toBe(0);
  });
});
