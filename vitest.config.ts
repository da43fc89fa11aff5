import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // Vite would pick graphql's ESM build for our files while yoga, loaded by Node, gets the
    // CommonJS one: two graphql realms, and GraphQLError instanceof checks fail across them.
    alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }],
  },
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/setup/no-secrets-in-logs.ts'],
    // Two files at a time: most of the suite waits (on servers, child processes, timers), so
    // two share the machine's two cores well; vitest's default here would be one. Every test
    // holds on a loaded machine (counts and order, never wall times), which this relies on.
    maxWorkers: 2,
    // A guard against hangs, not a measure: the longest tests take 15-20 s on a quiet
    // machine, and a busy one runs them three to five times slower.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // The JSON report is what .ci/run counts from.
    reporters: ['default', 'json'],
    outputFile: { json: 'test-results/vitest.json' },
  },
});
