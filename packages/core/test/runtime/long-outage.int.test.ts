// A fault from issue 42: the broker unreachable for 60 s mid-run (a proxy between the app and its
// broker drops every request and connection), then back. Input keeps arriving meanwhile. The
// app must recover by itself: exact counts under exactly_once, nothing lost under at_least_once.
// The figures (time to recover after the outage, duplicates) are printed for the note. On a wrong
// exactly_once output the message carries what the logs hold (txn-audit.ts): each record's
// producer epoch and its transaction's marker, and the input per key. One case serves the HTTP
// plugin: /health must say degraded (with the reason) during the outage and healthy after it,
// with the outage in /health's and /status' bodies.
import { Kafka, logLevel } from 'kafkajs';
import { pino } from 'pino';
import { afterAll, describe, it } from 'vitest';
import { ApiKey, FaultProxy } from '../../../../scripts/test/fault-proxy.ts';
import { topicsForThisFile } from '../../../../scripts/test/kafka.ts';
import { KafkaStreams, type KafkaStreamsState, type ProcessingGuarantee } from '../../src/index.ts';
import { countingTopology } from './fixtures/counting-topology.ts';
import {
  countSequences,
  highestCounts,
  produce,
  readTopic,
  tempStateDir,
  testBrokers,
  uniqueName,
  waitFor,
} from './kafka-helpers.ts';
import { auditTopic, byPosition, fatesByKey } from './txn-audit.ts';

/** What the test reads of the HTTP plugin's /health and /status bodies (its BrokerHealth). */
interface OutageBody {
  since: string;
  until?: string;
  durationMs: number;
  lastError?: string;
}
interface BrokerBody {
  reachable: boolean;
  outage?: OutageBody;
  lastOutage?: OutageBody;
}
interface HttpPlugin {
  startHttpServer(options: {
    app: KafkaStreams;
    port: number;
    host: string;
  }): Promise<{ port: number; close(): Promise<void> }>;
}
// The plugin is the http package, which depends on core: loaded by path at run time, so that its
// sources stay out of core's TypeScript project (project references cannot form a cycle).
const HTTP_PLUGIN = '../../../http/src/index.ts';
const loadHttpPlugin = () => import(HTTP_PLUGIN) as Promise<HttpPlugin>;

const OUTAGE_MS = 60_000;
const KEYS = Array.from({ length: 20 }, (_, i) => `k${i}`);
const PER_BATCH = 400;
const BATCHES = 8;

const topics = topicsForThisFile();
// The setup client's errors (a produce retried, say), kept for the failure message.
const directLog: string[] = [];
const direct = new Kafka({
  brokers: testBrokers(),
  logLevel: logLevel.ERROR,
  logCreator:
    () =>
    ({ log }) =>
      void directLog.push(`${log.timestamp} ${log.message} ${(log.error as string | undefined) ?? ''}`),
});
// Each case's app reaches the test broker through a routed proxy of its own (its socketFactory),
// so that the cases' outages are their own and the three run at once: one minute of outage for
// the file instead of three (196.6 s in the full run of 2026-12-06, one after another on a broker
// started for the file).
const proxies: FaultProxy[] = [];
afterAll(async () => {
  await Promise.all(proxies.map((p) => p.close()));
});

/**
 * `during`: the outage starts as the answer to the app's first request of that kind is lost (the
 * broker acted on it, the app cannot know), not after the first batch. With EndTxn the
 * coordinator has committed a transaction whose commit the app sees fail.
 */
const CASES: Array<{ guarantee: ProcessingGuarantee; during?: 'EndTxn'; http?: true }> = [
  { guarantee: 'exactly_once', http: true },
  { guarantee: 'at_least_once' },
  { guarantee: 'exactly_once', during: 'EndTxn' },
];

describe.concurrent('the broker unreachable for 60 s mid-run', () => {
  for (const { guarantee, during, http } of CASES) {
    const name = `${guarantee}${during ? ` (from a lost ${during} answer on)` : ''}`;
    it(`${name}: recovers by itself after the outage`, async ({ expect, onTestFinished }) => {
      const proxy = new FaultProxy(0);
      proxies.push(proxy);
      await proxy.start();
      let outageStart = 0;
      proxy.onLost = () => {
        if (outageStart > 0) return;
        outageStart = Date.now();
        proxy.dropConnections(OUTAGE_MS);
      };
      const input = await topics.create('outage-in', 4);
      const output = await topics.create('outage-out', 4);
      const batch = (b: number) =>
        Array.from({ length: PER_BATCH }, (_, i) => ({
          key: KEYS[(b * PER_BATCH + i) % KEYS.length]!,
          value: 'x',
        }));
      await produce(input, batch(0), direct);
      const log: string[] = [];
      const applicationId = uniqueName('outage-app');
      topics.cleanUpPrefix(applicationId);
      const app = new KafkaStreams(countingTopology(input, output), {
        applicationId,
        brokers: testBrokers(),
        socketFactory: proxy.socketFactory(),
        processingGuarantee: guarantee,
        commitIntervalMs: 200,
        stateDir: tempStateDir(),
        // Warnings and errors kept, to say what happened when the output is wrong.
        logger: pino({ level: 'warn' }, { write: (line: string) => void log.push(line) }),
      });
      onTestFinished(async () => {
        await app.close({ timeoutMs: 30_000 });
      });
      const server = http
        ? await (await loadHttpPlugin()).startHttpServer({ app, port: 0, host: '127.0.0.1' })
        : undefined;
      if (server) onTestFinished(() => server.close());
      const get = async (path: string) => {
        const res = await fetch(`http://127.0.0.1:${server!.port}${path}`);
        return {
          code: res.status,
          body: (await res.json()) as Record<string, unknown> & { broker?: BrokerBody },
        };
      };
      let duringOutage: Awaited<ReturnType<typeof get>> | undefined;
      const states: Array<[number, KafkaStreamsState]> = [];
      app.on('stateChange', (s) => states.push([Date.now(), s]));
      if (during) proxy.loseNextResponses([ApiKey[during]], 1);
      await app.start();
      if (during) await waitFor(() => outageStart > 0, 60_000, `the app's first ${during} request`);
      else {
        await waitFor(() => app.metrics().processedRecords >= PER_BATCH, 60_000, 'the first batch');
        outageStart = Date.now();
        proxy.dropConnections(OUTAGE_MS);
      }
      for (let b = 1; b < BATCHES; b++) {
        // Half-way through the outage: what /health says meanwhile.
        if (server && b === BATCHES / 2) duringOutage = await get('/health');
        await produce(input, batch(b), direct);
        await new Promise((r) => setTimeout(r, OUTAGE_MS / BATCHES));
      }
      const outageEnd = outageStart + OUTAGE_MS;
      await new Promise((r) => setTimeout(r, Math.max(0, outageEnd - Date.now())));
      const n = (BATCHES * PER_BATCH) / KEYS.length;

      const { highest, update } = highestCounts();
      const records = await readTopic(
        output,
        (r) => {
          update(r);
          return KEYS.every((k) => (highest.get(k) ?? 0) >= n) || app.state === 'ERROR';
        },
        { timeoutMs: 300_000, kafka: direct, settleMs: 1_000 },
      );
      const recoveredMs = Date.now() - outageEnd;
      const why = JSON.stringify({ state: app.state, error: app.error?.message, metrics: app.metrics() });
      expect(app.state, why).toBe('RUNNING');
      const seqs = countSequences(records);
      // A wrong sequence: where each value of the key was read, and the app's last warnings.
      const explain = (k: string) =>
        `${k}: ${records
          .filter((r) => r.key === k)
          .map((r) => `${Number(r.value.readBigInt64BE(0))}@${r.partition}:${r.offset}`)
          .join(' ')}\n${why}\n${log
          .slice(-40)
          .map((l) => {
            const { msg, err, taskId } = JSON.parse(l) as {
              msg: string;
              err?: { message?: string };
              taskId?: string;
            };
            return `${taskId ?? ''} ${msg} ${err?.message ?? ''}`;
          })
          .join('\n')}`;
      const total = KEYS.length * n;
      // The input first: a record the test wrote twice is counted twice, rightly.
      expect(
        await inputRecords(input),
        `the test wrote its input twice in part:\n${directLog.join('\n')}`,
      ).toBe(total);
      if (guarantee === 'exactly_once') {
        const exact = Array.from({ length: n }, (_, i) => i + 1);
        const wrong = KEYS.filter((k) => JSON.stringify(seqs.get(k)) !== JSON.stringify(exact));
        // What the logs hold, to tell a real duplicate from a reader or an input at fault.
        const evidence = wrong.length === 0 ? '' : await logEvidence(input, output, records, wrong[0]!);
        for (const k of KEYS) expect(seqs.get(k), `${explain(k)}\n${evidence}`).toEqual(exact);
      } else {
        for (const k of KEYS) expect(highest.get(k) ?? 0, explain(k)).toBeGreaterThanOrEqual(n);
      }
      if (server) {
        // During the outage: not ready (503), degraded, with the reason; live all the while.
        expect(duringOutage?.code, JSON.stringify(duringOutage)).toBe(503);
        expect(duringOutage?.body).toMatchObject({
          ready: false,
          degraded: true,
          reason: expect.stringMatching(/^no Kafka broker has answered since .* last error: .+/),
          broker: { reachable: false, outage: { durationMs: expect.any(Number) } },
        });
        // After it: healthy again, the outage recorded with its start, end and duration.
        await waitFor(
          async () => (await get('/health')).code === 200,
          60_000,
          '/health 200 after the outage',
        );
        const after = await get('/health');
        expect(after.body).toMatchObject({ ready: true, broker: { reachable: true } });
        expect(after.body.degraded).toBeUndefined();
        const { broker } = (await get('/status')).body;
        const last = broker?.lastOutage;
        expect(broker?.outage, JSON.stringify(broker)).toBeUndefined();
        expect(last?.durationMs, JSON.stringify(broker)).toBeGreaterThanOrEqual(55_000);
        expect(Date.parse(last!.since)).toBeGreaterThanOrEqual(outageStart - 1_000);
        expect(Date.parse(last!.until!) - Date.parse(last!.since)).toBe(last!.durationMs);
        expect(last?.lastError).toMatch(/\S/);
        expect(after.body.broker?.lastOutage).toEqual(last);
        console.log(
          `[outage ${name}] /health meanwhile: ${JSON.stringify(duringOutage?.body)}; after: ${JSON.stringify(broker)}`,
        );
      }
      const statesSince = states
        .filter(([t]) => t >= outageStart)
        .map(([t, s]) => `${s}@+${Math.round((t - outageStart) / 1000)}s`);
      console.log(
        `[outage ${name}] ${OUTAGE_MS / 1000} s outage: output complete ${Math.round(recoveredMs / 1000)} s after it ended; ` +
          `${records.length} records for ${total} updates (${records.length - total} duplicates); states: ${statesSince.join(', ') || 'none'}; ` +
          `rollbacks ${app.metrics().rollbacks}`,
      );
    }, 480_000);
  }
});

/**
 * For a wrong exactly_once output: each of the key's records as the reader saw it with its
 * producer id, epoch and its transaction's fate in the log; which keys' records the reader
 * returned from transactions not committed; and how many records per key the input holds.
 */
async function logEvidence(
  input: string,
  output: string,
  read: Array<{ key: string; value: Buffer; partition: number; offset: number }>,
  key: string,
): Promise<string> {
  const out = await auditTopic(direct, output);
  const inp = await auditTopic(direct, input);
  const at = byPosition(out.records);
  const seen = read
    .filter((r) => r.key === key)
    .map((r) => {
      const a = at.get(`${r.partition}:${r.offset}`);
      return `${Number(r.value.readBigInt64BE(0))}@${r.partition}:${r.offset}/${a ? `pid ${a.producerId} e${a.epoch} ${a.fate}` : 'not in log'}`;
    });
  const notCommitted = read.filter((r) => {
    const fate = at.get(`${r.partition}:${r.offset}`)?.fate;
    return fate !== 'COMMIT';
  }).length;
  const markers = out.markers
    .filter((m) => m.type === 'ABORT')
    .map((m) => `${m.partition}:${m.offset} pid ${m.producerId} e${m.epoch}`);
  const inputCounts = [...fatesByKey(inp.records)].map(([k, f]) => `${k}=${JSON.stringify(f)}`);
  return [
    `log of ${output}: ${key}: ${seen.join(' ')}`,
    `records the reader returned that the log does not show committed: ${notCommitted}`,
    `output fates per key: ${[...fatesByKey(out.records)].map(([k, f]) => `${k}=${JSON.stringify(f)}`).join(' ')}`,
    `ABORT markers in ${output}: ${markers.join(', ') || 'none'}`,
    `input ${input}: ${inp.records.length} records; per key: ${inputCounts.join(' ')}`,
    `the setup client's errors:\n${directLog.join('\n') || 'none'}`,
  ].join('\n');
}

/** How many records the input topic holds (its producer is not transactional: one per offset). */
async function inputRecords(topic: string): Promise<number> {
  const admin = direct.admin();
  await admin.connect();
  try {
    const offsets = await admin.fetchTopicOffsets(topic);
    return offsets.reduce((sum, o) => sum + Number(o.high) - Number(o.low), 0);
  } finally {
    await admin.disconnect();
  }
}
