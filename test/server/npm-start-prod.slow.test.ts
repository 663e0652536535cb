/**
 * `npm run start:prod` (build, then the compiled server) under a supervisor that signals only npm:
 * the build runs in the script's shell, the server replaces that shell (`exec`), so SIGTERM to npm
 * reaches it and its graceful shutdown runs. Slow: it compiles the project first.
 */
import { describe, expect, it } from 'vitest';
import { launch } from '../../src/process/launch.js';
import { isRunning } from '../../src/process/process-group.js';
import { waitForOutput } from '../../src/process/ready.js';
import { scratchDatabase } from '../../src/process/scratch-database.js';
import { expectSignalReachesServer } from '../helpers/npm-signals.js';

describe('npm run start:prod hands the signal to the server', () => {
  it('SIGTERM to npm alone: the compiled server shuts down gracefully and every process ends', { timeout: 120_000 }, async () => {
    const database = scratchDatabase('npm-start-prod-');
    const npm = launch(['npm', 'run', 'start:prod', '--silent'], {
      env: { PORT: '0', HOST: '127.0.0.1', DATABASE_PATH: database.path, LOG_LEVEL: 'info', NODE_ENV: 'production' },
    });
    try {
      const [, url = ''] = await waitForOutput(npm, /^Listening on (\S+)$/m, { timeoutMs: 100_000 });
      await expectSignalReachesServer(npm, url);
    } finally {
      await npm.stop({ signal: 'SIGKILL' });
      expect(isRunning(npm.pid, { group: true })).toBe(false);
      database.remove();
    }
  });
});
