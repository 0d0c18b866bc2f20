import { defineConfig } from 'vitest/config';

// Two projects: unit tests need nothing but Node; integration tests (*.int.test.ts) get a real
// Kafka broker from scripts/test/global-setup.ts, and a folder where the packages are packed once
// per run for the tests that install them (scripts/test/pack-setup.ts).
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          // The starter's own tests run here too, on the templates as they are (placeholders and all).
          include: [
            'packages/*/test/**/*.test.ts',
            'packages/create-kstreams/templates/test/*.test.ts',
            'scripts/**/*.test.ts',
          ],
          exclude: ['**/*.int.test.ts', '**/node_modules/**'],
          testTimeout: 60_000,
          typecheck: {
            enabled: true,
            include: ['packages/*/test/**/*.test-d.ts'],
            tsconfig: 'packages/core/tsconfig.json',
          },
        },
      },
      {
        test: {
          name: 'integration',
          include: ['packages/*/test/**/*.int.test.ts', 'scripts/**/*.int.test.ts'],
          globalSetup: ['scripts/test/global-setup.ts', 'scripts/test/pack-setup.ts'],
          testTimeout: 180_000,
          hookTimeout: 180_000,
          // One broker and two cores: files run one after another so timings stay sane.
          fileParallelism: false,
        },
      },
      // `npm run soak`: long fault runs on a broker of their own, never part of `npm test`.
      ...(process.env.KSTREAMS_SOAK
        ? [{ test: { name: 'soak', include: ['packages/*/test/**/*.soak.ts'], testTimeout: 0 } }]
        : []),
    ],
  },
});
