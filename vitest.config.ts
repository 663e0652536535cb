import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One Prism and one server for the whole run, for the files that can share them (see the file).
    globalSetup: ['test/global-setup.ts'],
    // Most test files wait on processes and sockets rather than compute, so two run at a time
    // even on two cores (vitest's default in `run` mode is cores - 1).
    maxWorkers: 2,
    // Type-level tests (*.test-d.ts) prove that code which breaks the contract does not compile.
    typecheck: { enabled: true, include: ['test/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
