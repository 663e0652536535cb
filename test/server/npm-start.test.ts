/**
 * `npm start` under a supervisor that signals only the process it started (a container's PID 1,
 * systemd's `KillMode=process`): SIGTERM to npm's own pid must reach the server, which then runs
 * its graceful shutdown, and nothing of the process group may be left running. The same for
 * `npm run start:prod` is in npm-start-prod.slow.test.ts (it builds first).
 */
import { describe, expect, it } from 'vitest';
import { launch } from '../../src/process/launch.js';
import { isRunning } from '../../src/process/process-group.js';
import { waitForOutput } from '../../src/process/ready.js';
import { scratchDatabase } from '../../src/process/scratch-database.js';
import { expectSignalReachesServer } from '../helpers/npm-signals.js';

describe('npm start hands the signal to the server', () => {
  it('SIGTERM to npm alone: the server shuts down gracefully and every process ends', { timeout: 60_000 }, async () => {
    const database = scratchDatabase('npm-start-');
    const npm = launch(['npm', 'start', '--silent'], {
      env: { PORT: '0', HOST: '127.0.0.1', DATABASE_PATH: database.path, LOG_LEVEL: 'info' },
    });
    try {
      const [, url = ''] = await waitForOutput(npm, /^Listening on (\S+)$/m, { timeoutMs: 45_000 });
      await expectSignalReachesServer(npm, url);
    } finally {
      await npm.stop({ signal: 'SIGKILL' });
      expect(isRunning(npm.pid, { group: true })).toBe(false);
      database.remove();
    }
  });
});
