import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'contracts/src/**/*.test.ts',
      'server/src/**/*.test.ts',
      'tests/src/**/*.test.ts',
      'sdk/src/**/*.test.ts',
      'mcp/src/**/*.test.ts',
    ],
    globalSetup: ['tests/src/harness/global-setup.ts'],
    pool: 'forks',
    // Two cores: two test files at a time, each on its own cloned database.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default', './tests/src/harness/summary-reporter.ts'],
  },
});
