import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One real PostgreSQL for the run; its URL is inject('postgresUrl').
    globalSetup: ['test/global-setup/postgres.ts'],
    // Type-level tests (*.test-d.ts) prove that code which breaks the contract does not compile.
    typecheck: { enabled: true, include: ['test/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
