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
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // The JSON report is what .ci/run counts from.
    reporters: ['default', 'json'],
    outputFile: { json: 'test-results/vitest.json' },
  },
});
