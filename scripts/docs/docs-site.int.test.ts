// The docs site (`npm run docs`: TypeDoc's API reference with the guides as project documents) is
// built and has no broken link: neither in the built HTML (pages, assets, #fragments) nor in the
// markdown guides as GitHub shows them. TypeDoc itself fails the build on a warning (a link to a
// file that does not exist, an unknown {@link}). No broker needed; an integration test so that
// the ~30 s build runs alone, not beside the unit tests.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { checkLinks } from './links.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const GUIDES = readdirSync(join(ROOT, 'docs'))
  .filter((f) => f.endsWith('.md'))
  .map((f) => `docs/${f}`);

const made: string[] = [];
const tempDir = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

describe('the docs site', () => {
  it('builds with TypeDoc, guides and API reference, with no broken link', async () => {
    const out = tempDir('kstreams-docs-');
    const started = Date.now();
    await promisify(execFile)(join(ROOT, 'node_modules/.bin/typedoc'), ['--out', out], { cwd: ROOT });
    console.log(`docs site built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    for (const page of ['index.html', 'documents/getting-started.html', 'documents/configuration.html'])
      expect(existsSync(join(out, page)), page).toBe(true);
    expect(existsSync(join(out, 'classes/_kstreams_core.KafkaStreams.html'))).toBe(true);

    const site = await checkLinks(out);
    console.log(`site: ${site.checked} URLs checked`);
    expect(site.broken).toEqual([]);
    // Every page of the site was reached from the start page.
    expect(site.checked).toBeGreaterThan(200);
  }, 120_000);

  it('has no broken link in the README and the markdown guides', async () => {
    const markdown = await checkLinks(['README.md', ...GUIDES], { markdown: true, serverRoot: ROOT });
    console.log(`markdown: ${markdown.checked} URLs checked`);
    expect(markdown.broken).toEqual([]);
    expect(markdown.checked).toBeGreaterThan(GUIDES.length);
  });

  it('reports a missing page and a missing #fragment, in HTML and in markdown', async () => {
    const dir = tempDir('kstreams-links-');
    writeFileSync(join(dir, 'index.html'), '<a href="b.html#nope">x</a> <a href="gone.html">y</a>');
    writeFileSync(join(dir, 'b.html'), '<h1 id="yes">b</h1>');
    writeFileSync(join(dir, 'a.md'), '[x](b.md#nope) [y](gone.md) [z](b.md#yes)\n');
    writeFileSync(join(dir, 'b.md'), '# Yes\n');
    const html = await checkLinks(dir);
    expect(html.broken.join('\n')).toMatch(/gone\.html/);
    expect(html.broken.join('\n')).toMatch(/b\.html#nope/);
    const md = await checkLinks(['a.md'], { markdown: true, serverRoot: dir });
    expect(md.broken.join('\n')).toMatch(/gone\.md/);
    expect(md.broken.join('\n')).toMatch(/b\.md#nope/);
    expect(md.broken.join('\n')).not.toMatch(/#yes/);
  });
});
