// kstreams describe on example modules, and the parsing of reset's time options (no broker).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../src/index.ts';
import { formatLag } from '../src/ops/lag.ts';
import { internalTopics } from '../src/ops/reset.ts';
import { parseDatetime, parseDuration } from '../src/ops/reset-time.ts';

const fixture = (name: string) => join(import.meta.dirname, 'fixtures', name);

async function cli(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(args, { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, out: out.join(''), err: err.join('') };
}

describe('kstreams describe', () => {
  it('prints the text description of a default-exported function', async () => {
    const r = await cli(['describe', fixture('word-count-module.ts')]);
    expect(r.code).toBe(0);
    expect(r.out).toContain('Topologies:');
    expect(r.out).toContain('Sub-topology: 0');
    expect(r.out).toContain('Source: KSTREAM-SOURCE-0000000000 (topics: [lines])');
    expect(r.out).toContain('counts-repartition');
  });

  it('prints Mermaid with --mermaid, and finds a named builder', async () => {
    const m = await cli(['describe', fixture('word-count-module.ts'), '--mermaid']);
    expect(m.code).toBe(0);
    expect(m.out).toMatch(/^(flowchart|graph) /);
    const b = await cli(['describe', fixture('builder-module.ts')]);
    expect(b.out).toContain('(topics: [in])');
  });

  it('exits 2 naming the file when it exports no topology', async () => {
    const r = await cli(['describe', fixture('empty-module.ts')]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('exports no Topology, StreamsBuilder or function returning one');
  });
});

describe('reset options and helpers', () => {
  it('parses ISO-8601 durations and datetimes as Java does', () => {
    expect(parseDuration('PT5M')).toBe(300_000);
    expect(parseDuration('P1DT2H0.5S')).toBe(93_600_500);
    expect(() => parseDuration('5m')).toThrow(/ISO-8601/);
    expect(parseDatetime('2024-01-02T03:04:05.006')).toBe(Date.UTC(2024, 0, 2, 3, 4, 5, 6));
    expect(() => parseDatetime('yesterday')).toThrow(/yyyy-MM-dd/);
  });

  it('finds internal topics by prefix and by the topology', () => {
    const all = ['app-counts-changelog', 'app-x-repartition', 'app-out', 'other-counts-changelog', 'app-y'];
    expect(internalTopics(all, 'app', ['app-y', 'missing'])).toEqual([
      'app-counts-changelog',
      'app-x-repartition',
      'app-y',
    ]);
    // The foreign-key joins' topics, named and generated, as Java's StreamsResetter finds them.
    const fk = [
      'app-KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000006-topic',
      'app-KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-0000000014-topic',
      'app-enrich-subscription-registration-topic',
      'app-enrich-subscription-response-topic',
      'app-KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-topic',
    ];
    expect(internalTopics(fk, 'app', [])).toEqual(fk.slice(0, 4).sort());
  });

  it('formats lag as aligned columns', () => {
    const text = formatLag([
      { topic: 'in', partition: 0, committed: 5, end: 7, lag: 2, lagFrom: 'committed', owner: 'm-1' },
      {
        topic: 'in-long-name',
        partition: 1,
        committed: null,
        end: 3,
        lag: 3,
        lagFrom: 'logStart',
        owner: null,
      },
    ]);
    expect(text.split('\n')).toEqual([
      'TOPIC         PARTITION  COMMITTED  END  LAG                 OWNER',
      'in            0          5          7    2                   m-1',
      'in-long-name  1          none       3    3 (from log start)  -',
    ]);
  });
});
