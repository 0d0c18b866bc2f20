import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main, ownVersion } from '../src/cli.js';
import { applicationIdFor, npmNameProblem, suggestNpmName } from '../src/names.js';
import { fillPlaceholders, projectFileName, TEMPLATES_DIR } from '../src/scaffold.js';

let cwd: string;
let out: string[];
let err: string[];
const run = (...argv: string[]) =>
  main(argv, { cwd, out: (line) => out.push(line), err: (line) => err.push(line) });
const read = (...path: string[]) => readFileSync(join(cwd, ...path), 'utf8');

beforeEach(() => {
  cwd = mkdtempSync(join(tmpdir(), 'create-kstreams-'));
  out = [];
  err = [];
});
afterEach(() => rmSync(cwd, { recursive: true, force: true }));

describe('create-kstreams', () => {
  it('writes the project: every template file, dotfiles renamed, no placeholder left', () => {
    expect(run('my-app')).toBe(0);
    const expected = [
      '.dockerignore',
      '.gitignore',
      'Dockerfile',
      'README.md',
      'compose.yaml',
      'package.json',
      'src/config.ts',
      'src/main.ts',
      'src/topology.ts',
      'test/config.test.ts',
      'test/topology.test.ts',
      'tsconfig.build.json',
      'tsconfig.json',
    ];
    // Also none a formatter turned into something else ("{ { name } }").
    for (const file of expected) expect(read('my-app', file), file).not.toMatch(/\{\s*\{/);
    expect(read('my-app', '.gitignore')).toContain('node_modules/');
    expect(out.join('\n')).toContain(`Created my-app in ${join(cwd, 'my-app')} (${expected.length} files`);
    expect(out.join('\n')).toContain('cd my-app');
    expect(err).toEqual([]);
  });

  it('names the package after the directory and depends on ^ its own version of @kstreams/core', () => {
    expect(run('word-counter')).toBe(0);
    const pkg = JSON.parse(read('word-counter', 'package.json'));
    expect(pkg.name).toBe('word-counter');
    expect(pkg.dependencies).toEqual({ '@kstreams/core': `^${ownVersion()}` });
    expect(pkg.overrides).toBeUndefined();
    expect(pkg.scripts).toMatchObject({ build: 'tsc -p tsconfig.build.json', start: 'node dist/main.js' });
    expect(read('word-counter', 'src/config.ts')).toContain("env.APPLICATION_ID || 'word-counter'");
    expect(read('word-counter', 'compose.yaml')).toContain('APPLICATION_ID: "word-counter"');
    expect(read('word-counter', 'README.md')).toMatch(/^# word-counter\n/);
  });

  it('takes --name, --kstreams-version, and --spec for unpublished builds (other packages as overrides)', () => {
    expect(run('svc', '--name', '@acme/counts', '--kstreams-version', '0.3.0')).toBe(0);
    const pkg = JSON.parse(read('svc', 'package.json'));
    expect(pkg.name).toBe('@acme/counts');
    expect(pkg.dependencies['@kstreams/core']).toBe('0.3.0');
    expect(read('svc', 'src/config.ts')).toContain("env.APPLICATION_ID || 'counts'");

    const core = 'file:/tmp/packs/kstreams-core-0.1.0.tgz';
    const store = 'file:/tmp/packs/kstreams-state-store-0.1.0.tgz';
    expect(
      run('packed', '--spec', `@kstreams/core=${core}`, '--spec', `@kstreams/state-store=${store}`),
    ).toBe(0);
    const packed = JSON.parse(read('packed', 'package.json'));
    expect(packed.dependencies['@kstreams/core']).toBe(core);
    expect(packed.overrides).toEqual({ '@kstreams/state-store': store });
  });

  it('refuses a non-empty directory and leaves what is in it alone', () => {
    mkdirSync(join(cwd, 'busy'));
    writeFileSync(join(cwd, 'busy', 'notes.txt'), 'mine');
    expect(run('busy')).toBe(2);
    expect(err[0]).toBe(
      `create-kstreams: ${join(cwd, 'busy')} is not empty (it holds notes.txt); choose a new directory, or empty this one, so that nothing in it is overwritten.`,
    );
    expect(read('busy', 'notes.txt')).toBe('mine');
    expect(() => read('busy', 'package.json')).toThrow(/ENOENT/);
  });

  it('writes into an empty directory, or one with only .git, such as "."', () => {
    mkdirSync(join(cwd, 'repo', '.git'), { recursive: true });
    cwd = join(cwd, 'repo');
    expect(run('.')).toBe(0);
    expect(JSON.parse(read('package.json')).name).toBe('repo');
    expect(out.join('\n')).not.toContain('cd ');
  });

  it('refuses a name npm would refuse, and says what to use instead', () => {
    expect(run('My App')).toBe(2);
    expect(err[0]).toBe(
      'create-kstreams: "My App" cannot be an npm package name: it has upper-case letters. name the directory something like "my-app".',
    );
    err = [];
    expect(run('ok-dir', '--name', '_private')).toBe(2);
    expect(err[0]).toContain(
      '"_private" cannot be an npm package name: it starts with "." or "_". pass --name',
    );
    expect(run('http')).toBe(2);
    expect(run('a/b')).toBe(0); // a path: the package is named after its last part
  });

  it('explains a missing directory, extra arguments and unknown options, exit 2', () => {
    expect(run()).toBe(2);
    expect(err[0]).toBe('create-kstreams: the project directory is missing, e.g. my-app');
    expect(run('a', 'b')).toBe(2);
    expect(run('a', '--kstreams-versoin', '1')).toBe(2);
    expect(err.join('\n')).toContain("Unknown option '--kstreams-versoin'");
    expect(run('a', '--spec', 'core=1.0.0')).toBe(2);
    expect(err.at(-2)).toContain('--spec takes <package>=<spec> for a @kstreams package');
    expect(run('a', '--spec', '@kstreams/core=1.0.0', '--kstreams-version', '1.0.0')).toBe(2);
    expect(run('a', '--kstreams-version', '1.0.0"')).toBe(2);
    expect(err.at(-2)).toBe(
      'create-kstreams: --kstreams-version takes a version or range such as 0.1.0, got "1.0.0""',
    );
    expect(run('a', '--spec', '@kstreams/core=file:/my packs/core.tgz')).toBe(2);
    expect(err.at(-2)).toContain('without spaces or quotes');
    expect(run('--help')).toBe(0);
    expect(out.join('\n')).toContain('Usage: npm create kstreams@latest <project-dir>');
  });
});

describe('the bin', () => {
  it('runs with plain node and exits with the code main returns', () => {
    const bin = join(import.meta.dirname, '..', 'bin', 'create-kstreams.js');
    const made = spawnSync(process.execPath, [bin, 'svc'], { cwd, encoding: 'utf8' });
    expect(made.status).toBe(0);
    expect(JSON.parse(read('svc', 'package.json')).name).toBe('svc');
    const refused = spawnSync(process.execPath, [bin, 'svc'], { cwd, encoding: 'utf8' });
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain('is not empty');
  });
});

describe('names', () => {
  it('checks npm package names', () => {
    for (const ok of ['my-app', 'a', 'word.count_2', '@acme/counts', 'x~y'])
      expect(npmNameProblem(ok), ok).toBeUndefined();
    expect(npmNameProblem('')).toBe('it is empty');
    expect(npmNameProblem('a'.repeat(215))).toBe('it is longer than 214 characters');
    expect(npmNameProblem('.hidden')).toBe('it starts with "." or "_"');
    expect(npmNameProblem('fs')).toBe('the name is reserved (a Node.js core module)');
    expect(npmNameProblem('node_modules')).toBe('the name is reserved (a Node.js core module)');
    for (const bad of ['a b', 'a/b', '@acme', 'café', 'a:b'])
      expect(npmNameProblem(bad), bad).toMatch(/may only hold lower-case letters/);
  });

  it('suggests a name and derives the applicationId', () => {
    expect(suggestNpmName('  My Word Count! ')).toBe('my-word-count');
    expect(suggestNpmName('___')).toBe('kstreams-app');
    expect(applicationIdFor('@acme/word~count')).toBe('word-count');
    expect(applicationIdFor('my.app_1')).toBe('my.app_1');
  });
});

describe('templates', () => {
  it('fills every placeholder, and refuses one without a value', () => {
    expect(fillPlaceholders('a {{name}} b {{name}}', { name: 'x' }, 'f')).toBe('a x b x');
    expect(() => fillPlaceholders('{{nmae}}', { name: 'x' }, 'src/main.ts')).toThrow(
      'template src/main.ts uses {{nmae}}, which has no value',
    );
    expect(projectFileName('_gitignore')).toBe('.gitignore');
    expect(projectFileName('main.ts')).toBe('main.ts');
  });

  it('holds no dotfile, which npm would leave out of the package', () => {
    const files = readdirSync(TEMPLATES_DIR, { recursive: true, encoding: 'utf8' });
    expect(files).toContain('_gitignore');
    expect(files.filter((file) => /(^|[\\/])\./.test(file))).toEqual([]);
  });
});
