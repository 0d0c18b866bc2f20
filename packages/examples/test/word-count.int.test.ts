// Two instances of the word-count app as child processes, sharing one application id: every
// word's count is right on either instance, whichever of them owns the word.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../scripts/test/free-port.ts';
import { testBrokers, testKafka, topicsForThisFile, uniqueName } from '../../../scripts/test/kafka.ts';
import { feederProducer } from '../src/common/kafka.ts';
import { BOOK_PATH, feedLines, readLines } from '../src/word-count/feeder.ts';
import { wordsOf } from '../src/word-count/words.ts';
import {
  allRunning,
  eventually,
  getJson,
  type Instance,
  killAll,
  logsOf,
  startInstance,
} from './instances.ts';

const LINES = 1_500;

describe('word-count: two instances answer interactive queries', () => {
  const topics = topicsForThisFile();
  const applicationId = uniqueName('wc-int');
  const input = `${applicationId}-text`;
  const output = `${applicationId}-counts`;
  const stateRoot = mkdtempSync(join(tmpdir(), 'wc-int-'));
  const instances: Instance[] = [];
  const truth = new Map<string, number>();

  function startWordCount(index: number, port: number): Instance {
    const args = ['--brokers', testBrokers().join(','), '--application-id', applicationId, '--input', input];
    args.push(
      '--output',
      output,
      '--state-dir',
      join(stateRoot, `instance-${index}`),
      '--guarantee',
      'exactly_once',
    );
    return startInstance('packages/examples/src/word-count/main.ts', args, port, `${applicationId}-${index}`);
  }

  beforeAll(async () => {
    topics.cleanUpPrefix(applicationId);
    const ports = [await freePort(), await freePort()];
    instances.push(startWordCount(0, ports[0]!), startWordCount(1, ports[1]!));
    // RUNNING (/health is 200 only then): the second instance is RUNNING only
    // once it has joined the group and got its half of the tasks, which the test relies on.
    await allRunning(instances);
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
    await killAll(instances);
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

  it('GET /metrics (Prometheus text) of both instances: process rate > 0 while lines flow, then lag 0 on every partition and every record counted once', async () => {
    /** Each instance's samples of `name`, summed when `sum`, from its /metrics over HTTP. */
    const scrape = async () =>
      Promise.all(
        instances.map(async (i) => {
          const text = await (await fetch(`http://127.0.0.1:${i.port}/metrics`)).text();
          return text
            .split('\n')
            .filter((l) => l !== '' && !l.startsWith('#'))
            .map((l) => {
              const [, name, labels, value] = /^(\w+)\{(.*)\} (\S+)$/.exec(l)!;
              return { name: name!, labels: labels!, value: Number(value) };
            });
        }),
      );
    const total = (all: Awaited<ReturnType<typeof scrape>>, name: string, labels = '') =>
      all.flat().reduce((n, s) => (s.name === name && s.labels.includes(labels) ? n + s.value : n), 0);

    const more = Array.from({ length: 300 }, (_, i) => `metrics line ${i} of the word count`);
    const producer = feederProducer(testKafka('wc-int-metrics'));
    await producer.connect();
    const feeding = feedLines(producer, input, more, { batchSize: 20 });
    const flowing = await eventually('process rate > 0 on a scrape', 60_000, async () => {
      const all = await scrape();
      return total(all, 'kstreams_stream_thread_process_rate') > 0 ? all : undefined;
    });
    await feeding;
    await producer.disconnect();
    expect(total(flowing, 'kstreams_stream_thread_poll_rate')).toBeGreaterThan(0);
    expect(total(flowing, 'kstreams_client_state', 'state="RUNNING"')).toBe(2);

    const lines = LINES + more.length;
    const words = [...truth.values()].reduce((a, b) => a + b, 0) + more.flatMap(wordsOf).length;
    const done = await eventually('lag 0 and every record processed', 120_000, async () => {
      const all = await scrape();
      const lag = all.flat().filter((s) => s.name === 'kstreams_consumer_records_lag');
      const settled =
        lag.length === 8 &&
        lag.every((s) => s.value === 0) &&
        total(all, 'kstreams_stream_task_process_total', 'task_id="1_') === words;
      return settled ? all : undefined;
    }).catch((error) => {
      throw new Error(`${error.message}\n${logsOf(instances)}`);
    });
    // 4 input and 4 repartition partitions, split between the two instances.
    const lagged = done.map((s) => s.filter((x) => x.name === 'kstreams_consumer_records_lag').length);
    expect(lagged.every((n) => n > 0)).toBe(true);
    expect(total(done, 'kstreams_stream_task_process_total', 'task_id="0_')).toBe(lines);
    expect(total(done, 'kstreams_stream_thread_process_total')).toBe(lines + words);
    expect(total(done, 'kstreams_stream_thread_transaction_commit_total')).toBeGreaterThan(0);
    expect(total(done, 'kstreams_stream_task_rollbacks_total')).toBe(0);
    expect(total(done, 'kstreams_stream_task_dropped_records_total')).toBe(0);
  }, 200_000);

  it('stops cleanly on SIGTERM and SIGINT (exit code 0)', async () => {
    instances[0]!.child.kill('SIGTERM');
    instances[1]!.child.kill('SIGINT');
    expect(await instances[0]!.exited).toBe(0);
    expect(await instances[1]!.exited).toBe(0);
  });
});
