// The docs' code is what a new user copies. The README's first app is extracted from README.md,
// type checked against @kstreams/core's source under the project's strict settings, and its
// topology run through the TopologyTestDriver (readme-first-app.int.test.ts runs it whole, against
// the broker, and stops it with SIGTERM). The guides' TypeScript examples that import a kstreams
// package are type checked too: all in one compiler program, which costs the most here.
// An example may use `builder`, `app`, `table` or `topology` without making them (the guide's
// text says what they are); they are declared for it when it does not declare them itself.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Serdes, type Topology } from '../../packages/core/src/index.ts';
import { TopologyTestDriver } from '../../packages/core/src/testing/index.ts';
import { codeBlocks, firstApp } from './readme.ts';
import { ROOT, typeErrors } from './typecheck.ts';

const CORE = join(ROOT, 'packages/core/src/index.ts');
const GIVEN: Record<string, string> = {
  builder: "import('@kstreams/core').StreamsBuilder",
  app: "import('@kstreams/core').KafkaStreams",
  table: "import('@kstreams/core').KTable<string, number>",
  topology: "import('@kstreams/core').Topology",
};

/** Each guide's TypeScript blocks that import a kstreams package, named `<guide>-<n>`. */
function examples(): Record<string, string> {
  const found: Record<string, string> = {};
  for (const file of readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md'))) {
    const markdown = readFileSync(join(ROOT, 'docs', file), 'utf8');
    const blocks = codeBlocks(markdown, 'ts').filter((code) => code.includes("from '@kstreams/"));
    blocks.forEach((code, i) => {
      const missing = Object.keys(GIVEN).filter(
        (name) => new RegExp(`\\b${name}\\b`).test(code) && !new RegExp(`(const|let) ${name}\\b`).test(code),
      );
      const prelude = missing.map((name) => `declare const ${name}: ${GIVEN[name]};`).join('\n');
      found[`${file.replace('.md', '')}-${i + 1}`] = `${code}\n${prelude}\nexport {};\n`;
    });
  }
  return found;
}

describe("README's first app", () => {
  const app = firstApp(readFileSync(join(ROOT, 'README.md'), 'utf8'));

  it('is a whole service of about 20 lines: builds, starts, and closes on SIGTERM and SIGINT', () => {
    const lines = app.split('\n').filter((l) => l.trim() !== '');
    expect(lines.length).toBeLessThanOrEqual(30);
    for (const part of [
      'new StreamsBuilder()',
      'new KafkaStreams(',
      'await app.start()',
      'await app.close()',
    ])
      expect(app).toContain(part);
    expect(app).toMatch(/SIGTERM/);
    expect(app).toMatch(/SIGINT/);
  });

  it("type checks against @kstreams/core under strict settings, as do the guides' examples", () => {
    const guides = examples();
    expect(Object.keys(guides).length).toBeGreaterThanOrEqual(5);
    const errors = typeErrors({
      ...guides,
      'readme-first-app': app,
      // The check is not vacuous: a call the API does not have is an error.
      'readme-first-app-broken': app.replace('await app.start()', 'await app.begin()'),
    });
    expect(errors['readme-first-app-broken']?.join('\n')).toContain("Property 'begin' does not exist");
    delete errors['readme-first-app-broken'];
    expect(Object.fromEntries(Object.entries(errors).filter(([, list]) => list.length > 0))).toEqual({});
  });

  it('counts words: its topology through the TopologyTestDriver', async () => {
    const [building] = app.split('const app = new KafkaStreams(');
    const dir = mkdtempSync(join(tmpdir(), 'kstreams-readme-'));
    const module = join(dir, 'topology.ts');
    writeFileSync(
      module,
      `${building!.replace("'@kstreams/core'", JSON.stringify(CORE))}\nexport const topology = builder.build();\n`,
    );
    const { topology } = (await import(module)) as { topology: Topology };
    rmSync(dir, { recursive: true, force: true });
    const driver = new TopologyTestDriver(topology, { applicationId: 'word-count' });
    const lines = driver.createInputTopic('text-lines', Serdes.String(), Serdes.String());
    const counts = driver.createOutputTopic('word-counts', Serdes.String(), Serdes.Long());
    await lines.pipeInput(null, 'The cat and the hat.');
    await lines.pipeInput(null, 'THE END');
    expect(counts.readKeyValuesToMap()).toEqual(
      new Map([
        ['the', 3],
        ['cat', 1],
        ['and', 1],
        ['hat', 1],
        ['end', 1],
      ]),
    );
    expect(driver.getKeyValueStore<string, number>('counts').get('the')).toBe(3);
    await driver.close();
  });
});
