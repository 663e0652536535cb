import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Tests that put load on a process for seconds (the bench's quick run, the soak, fifty slow
 * clients), and the end-to-end runs of whole multi-process setups (the cluster, the browser
 * through the web application, the watchers), are named `*.slow.test.ts`: they run in
 * `npm run test:slow`, which CI runs after `npm test`, never beside each other, since some
 * measure time; `npm test` stays within its minute.
 */
const SLOW = 'test/**/*.slow.test.ts';

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'default',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, SLOW],
          // One Prism, one server and one real PostgreSQL (Debian's binaries, no Docker) for the whole run, each
          // started when the first file asks for it (`sharedService`, see the file), so a run that needs none starts none.
          globalSetup: ['test/global-setup.ts'],
          // Password hashes at a test's cost, not OWASP's (see the file): the slow project keeps the real one.
          setupFiles: ['test/setup/cheap-password-hashes.ts'],
          // Most test files wait on processes and sockets rather than compute, so three run at a time
          // even on two cores (vitest's default in `run` mode is cores - 1). Measured on this 2-core
          // machine, quiet: 2 workers 65.8 s, 3 workers 59.9 s, 4 workers 61.2 s.
          maxWorkers: 3,
          // Files that run in one worker share its modules, so the spec is read and compiled once per
          // worker rather than once per file: a fifth of the run's CPU. A file restores what it
          // changes globally (spies, environment variables, process.exitCode).
          isolate: false,
          // Type-level tests (*.test-d.ts) prove that code which breaks the contract does not compile; their checker
          // reuses `npm run typecheck`'s build info, so after `npm run check` the project is not typechecked twice.
          typecheck: { enabled: true, include: ['test/**/*.test-d.ts'], tsconfig: './tsconfig.json', checker: 'bin/tsc-shared-build-info.mjs' },
        },
      },
      {
        extends: true,
        // The same broker: the cluster's tests start instances on its PostgreSQL, which starts only for them.
        test: { name: 'slow', include: [SLOW], maxWorkers: 1, testTimeout: 120_000, globalSetup: ['test/global-setup.ts'] },
      },
    ],
  },
});
