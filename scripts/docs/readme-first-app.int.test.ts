// The README's first app, run as a user runs it: its code as README.md has it (topic names and
// application id made unique), in a process of its own, against the broker. It must count the
// words fed to it, and on SIGTERM commit, leave the group and exit 0.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { testBrokers, testKafka, topicsForThisFile, uniqueName } from '../test/kafka.ts';
import { firstApp } from './readme.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const LINES = ['The cat and the hat', 'the end', 'A cat'];
const EXPECTED = new Map([
  ['the', 3],
  ['cat', 2],
  ['and', 1],
  ['hat', 1],
  ['end', 1],
  ['a', 1],
]);

const exited = (child: ChildProcess) =>
  new Promise<number | null>((done) => {
    if (child.exitCode !== null) done(child.exitCode);
    else child.once('exit', (code) => done(code));
  });

describe("README's first app against the broker", () => {
  const topics = topicsForThisFile();
  const applicationId = uniqueName('readme-app');
  topics.cleanUpPrefix(applicationId);
  let child: ChildProcess | undefined;
  const dir = mkdtempSync(join(tmpdir(), 'kstreams-readme-app-'));
  afterAll(async () => {
    if (child && child.exitCode === null) {
      child.kill('SIGKILL');
      await exited(child);
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('counts the words of its input, and closes cleanly on SIGTERM', async () => {
    const input = await topics.create(`${applicationId}-lines`, 2);
    const output = await topics.create(`${applicationId}-counts`, 2);
    const code = firstApp(readFileSync(join(ROOT, 'README.md'), 'utf8'))
      .replace("'@kstreams/core'", JSON.stringify(join(ROOT, 'packages/core/src/index.ts')))
      .replaceAll("'text-lines'", JSON.stringify(input))
      .replaceAll("'word-counts'", JSON.stringify(output))
      .replace("applicationId: 'word-count'", `applicationId: ${JSON.stringify(applicationId)}`);
    expect(code).toContain(applicationId);
    // As the README says: app.ts needs a package.json with "type": "module" (top-level await).
    writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
    writeFileSync(join(dir, 'app.ts'), code);
    // TMPDIR: the app's default stateDir (<tmpdir>/kstreams) lands in the test's own folder.
    child = spawn(join(ROOT, 'node_modules/.bin/tsx'), [join(dir, 'app.ts')], {
      env: { ...process.env, KAFKA_BROKERS: testBrokers().join(','), TMPDIR: dir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout?.on('data', (d) => {
      out += d;
    });
    child.stderr?.on('data', (d) => {
      out += d;
    });
    const started = async () => {
      for (let i = 0; i < 600 && !out.includes('counting words'); i++) {
        if (child?.exitCode !== null) throw new Error(`the app exited: ${out}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(out).toContain('counting words');
    };
    await started();

    const kafka = testKafka('readme-app-test');
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic: input, messages: LINES.map((value) => ({ value })) });
    await producer.disconnect();

    const counts = new Map<string, number>();
    const consumer = kafka.consumer({ groupId: uniqueName('readme-reader') });
    await consumer.connect();
    await consumer.subscribe({ topic: output, fromBeginning: true });
    const done = new Promise<void>((resolveDone, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`counts so far: ${JSON.stringify([...counts])}\n${out}`)),
        60_000,
      );
      void consumer.run({
        eachMessage: async ({ message }) => {
          counts.set(message.key!.toString(), Number(message.value!.readBigInt64BE()));
          if ([...EXPECTED].every(([w, n]) => counts.get(w) === n)) {
            clearTimeout(timer);
            resolveDone();
          }
        },
      });
    });
    await done;
    await consumer.disconnect();
    expect(counts).toEqual(EXPECTED);

    child.kill('SIGTERM');
    expect(await exited(child)).toBe(0);
    const admin = await topics.admin();
    // The close left the group: no member waits out its session timeout.
    const { groups } = await admin.describeGroups([applicationId]);
    expect(groups[0]?.members).toEqual([]);
    // And the group's committed offsets are at the end of the input.
    const committed = await admin.fetchOffsets({ groupId: applicationId, topics: [input] });
    const total = committed[0]!.partitions.reduce((sum, p) => sum + Number(p.offset), 0);
    expect(total).toBe(LINES.length);
  });
});
