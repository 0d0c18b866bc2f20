// The tarball check on file lists: a built package passes; one packed without its dist/, with its
// sources or tests, or with a workspace: dependency fails, each naming what is wrong.
import { describe, expect, it } from 'vitest';
import { type PackedManifest, tarballProblems } from './tarball-contents.ts';

const manifest: PackedManifest = {
  name: '@kstreams/core',
  exports: {
    '.': { types: './dist/index.d.ts', import: './dist/index.js', default: './dist/index.js' },
    './testing': { types: './dist/testing/index.d.ts', import: './dist/testing/index.js' },
  },
  dependencies: { '@kstreams/state-store': '0.1.0', kafkajs: '2.2.4' },
};
const built = [
  'package.json',
  'LICENSE',
  'README.md',
  'dist/index.js',
  'dist/index.d.ts',
  'dist/index.d.ts.map',
  'dist/testing/index.js',
  'dist/testing/index.d.ts',
];

describe('tarballProblems', () => {
  it('passes a package of dist/, LICENSE, README and package.json whose exports are all there', () => {
    expect(tarballProblems(built, manifest)).toEqual([]);
  });

  it('fails a package packed without dist/, naming each missing export target', () => {
    const problems = tarballProblems(['package.json', 'LICENSE'], manifest);
    expect(problems).toContain(
      './dist/index.js: named in package.json, missing from the tarball (was dist/ built?)',
    );
    expect(problems).toContain(
      './dist/testing/index.d.ts: named in package.json, missing from the tarball (was dist/ built?)',
    );
    expect(problems).toHaveLength(4);
  });

  it('fails sources, tests, build info, a missing LICENSE and exports into src/', () => {
    const problems = tarballProblems(
      [
        ...built.filter((f) => f !== 'LICENSE'),
        'src/index.ts',
        'dist/x.test.js',
        'dist/.tsbuildinfo',
        'dist/y.ts',
      ],
      { ...manifest, exports: { '.': './src/index.ts' } },
    );
    expect(problems).toEqual([
      'src/index.ts: only dist/, package.json, README.md and LICENSE belong in it',
      'dist/x.test.js: a test',
      "dist/.tsbuildinfo: tsc's build info",
      'dist/y.ts: TypeScript source',
      'no LICENSE',
      './src/index.ts: exports and bin must point into dist/ (run pnpm pack)',
    ]);
  });

  it('fails a workspace: dependency or peer (npm pack leaves them) and checks a bin', () => {
    const problems = tarballProblems(built, {
      ...manifest,
      bin: { kstreams: './dist/main.js' },
      dependencies: { '@kstreams/state-store': 'workspace:*' },
      peerDependencies: { '@kstreams/core': 'workspace:^' },
    });
    expect(problems).toEqual([
      './dist/main.js: named in package.json, missing from the tarball (was dist/ built?)',
      'dependencies @kstreams/state-store@workspace:*: pack with pnpm',
      'peerDependencies @kstreams/core@workspace:^: pack with pnpm',
    ]);
  });
});
