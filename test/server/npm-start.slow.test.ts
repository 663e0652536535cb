/**
 * `npm start` and `npm run start:prod` under a supervisor that signals only the process it started
 * (a container's PID 1, systemd's `KillMode=process`): SIGTERM to npm's own pid must reach the
 * server, which then runs its graceful shutdown, and nothing of the process group may be left
 * running. Slow: npm and the server start for real, and `start:prod` compiles the project first.
 */
import { describe, expect, it } from 'vitest';
import { launch } from '../../tools/process/launch.js';
import { isRunning } from '../../tools/process/process-group.js';
import { waitForOutput } from '../../tools/process/ready.js';
import { scratchDatabase } from '../../tools/process/scratch-database.js';
import { expectSignalReachesServer } from '../helpers/npm-signals.js';

describe.each([
  { script: ['start'], startsWithinMs: 45_000 },
  { script: ['run', 'start:prod'], startsWithinMs: 100_000 },
])('npm $script.0$script.1 hands the signal to the server', ({ script, startsWithinMs }) => {
  it('SIGTERM to npm alone: the server shuts down gracefully and every process ends', { timeout: startsWithinMs + 20_000 }, async () => {
    const database = scratchDatabase('npm-start-');
    const npm = launch(['npm', ...script, '--silent'], {
      env: { PORT: '0', HOST: '127.0.0.1', DATABASE_PATH: database.path, LOG_LEVEL: 'info', NODE_ENV: 'production', SHUTDOWN_DELAY_SECONDS: '0' },
    });
    try {
      const [, url = ''] = await waitForOutput(npm, /^Listening on (\S+)$/m, { timeoutMs: startsWithinMs });
      await expectSignalReachesServer(npm, url);
    } finally {
      await npm.stop({ signal: 'SIGKILL' });
      expect(isRunning(npm.pid, { group: true })).toBe(false);
      database.remove();
    }
  });
});
