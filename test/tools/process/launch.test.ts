import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../../src/contract/project.js';
import { launch } from '../../../tools/process/launch.js';
import { isRunning } from '../../../tools/process/process-group.js';
import { scratchDatabase } from '../../../tools/process/scratch-database.js';

const node = (script: string) => [process.execPath, '-e', script];
const scratch = scratchDatabase('launch-test-');
afterAll(() => scratch.remove());

/** A process that starts a child in its group, prints the child's pid, and ignores SIGTERM when told to. */
const parentOfChild = (ignoreTerm: boolean) =>
  node(`
    ${ignoreTerm ? "process.on('SIGTERM', () => {});" : ''}
    const child = require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    console.log('child ' + child.pid);
    setInterval(() => {}, 1000);
  `);

async function childPid(output: () => string): Promise<number> {
  for (let waited = 0; waited < 10_000; waited += 10) {
    const match = /^child (\d+)$/m.exec(output());
    if (match) return Number(match[1]);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`no child pid in ${output()}`);
}

describe('launch', () => {
  it('captures stdout and stderr apart, and settles with the exit code once the output is read', async () => {
    const launched = launch(node("process.stdout.write('out'); process.stderr.write('err'); process.exitCode = 3"));
    expect(launched.exitStatus()).toBeUndefined();
    expect(await launched.exited).toEqual({ code: 3, signal: null });
    expect(launched.exitStatus()).toEqual({ code: 3, signal: null });
    expect({ stdout: launched.stdout(), stderr: launched.stderr() }).toEqual({ stdout: 'out', stderr: 'err' });
    expect(launched.outputTail()).toBe('out\nerr');
  });

  it('passes the environment it is given on top of this one, and can remove a variable', async () => {
    process.env['LAUNCH_TEST_INHERITED'] = 'kept';
    process.env['LAUNCH_TEST_REMOVED'] = 'present';
    try {
      const launched = launch(
        node('console.log([process.env.LAUNCH_TEST_INHERITED, process.env.LAUNCH_TEST_ADDED, process.env.LAUNCH_TEST_REMOVED].join(","))'),
        {
          env: { LAUNCH_TEST_ADDED: 'added', LAUNCH_TEST_REMOVED: undefined },
        },
      );
      await launched.exited;
      expect(launched.stdout()).toBe('kept,added,\n');
    } finally {
      delete process.env['LAUNCH_TEST_INHERITED'];
      delete process.env['LAUNCH_TEST_REMOVED'];
    }
  });

  it('keeps only about the last maxOutputChars of each stream', async () => {
    const launched = launch(node("for (let i = 0; i < 1000; i++) console.log('line ' + i)"), { maxOutputChars: 100 });
    await launched.exited;
    expect(launched.stdout().length).toBeLessThanOrEqual(200);
    expect(launched.stdout()).toMatch(/line 999\n$/);
  });

  it('writes to files when asked, one file for both streams if they are the same path', async () => {
    const log = join(scratch.dir, 'both.log');
    const launched = launch(node("console.log('to stdout'); console.error('to stderr')"), { output: { stdoutFile: log, stderrFile: log } });
    await launched.exited;
    expect(readFileSync(log, 'utf8')).toBe('to stdout\nto stderr\n');
    expect(launched.stdout()).toBe('to stdout\nto stderr\n');
    expect(launched.stderr()).toBe('');
  });

  it('hands output to onOutput as it comes, and still keeps it', async () => {
    const pieces: string[] = [];
    const launched = launch(node("console.log('first'); setTimeout(() => console.error('second'), 50)"), {
      onOutput: (text, stream) => pieces.push(`${stream}:${text}`),
    });
    await launched.exited;
    expect(pieces).toEqual(['stdout:first\n', 'stderr:second\n']);
    expect(launched.outputTail()).toBe('first\n\nsecond');
  });

  it("puts the project's node_modules/.bin first on PATH with preferLocal", async () => {
    const launched = launch(['sh', '-c', 'command -v biome'], { preferLocal: true });
    await launched.exited;
    expect(launched.stdout().trim()).toBe(join(projectRoot, 'node_modules', '.bin', 'biome'));
  });

  it('runs a process lower in the CPU queue with niceness: its threads, its children, and its session group', async () => {
    const launched = launch(parentOfChild(false), { niceness: 7 });
    try {
      const niceOf = (pid: number) => Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ')[16]);
      const child = await childPid(launched.stdout);
      expect([niceOf(launched.pid), niceOf(child)]).toEqual([7, 7]);
      // With autogroups (Linux), a session leader is weighed as a group whatever its threads' nice values.
      const autogroups = '/proc/sys/kernel/sched_autogroup_enabled';
      if (existsSync(autogroups) && readFileSync(autogroups, 'utf8').trim() === '1')
        expect(readFileSync(`/proc/${launched.pid}/autogroup`, 'utf8')).toMatch(/ nice 7$/m);
    } finally {
      await launched.stop();
    }
  });

  it('throws at once for a command that cannot start, or an empty command line', () => {
    expect(() => launch(['/nonexistent/command'])).toThrow('launch: could not start /nonexistent/command');
    expect(() => launch([])).toThrow('empty command line');
  });

  it('stop() ends the whole group it leads, the process and what it started', async () => {
    const launched = launch(parentOfChild(false));
    const child = await childPid(() => launched.stdout());
    expect(isRunning(child)).toBe(true);
    expect(await launched.stop()).toEqual({ code: null, signal: 'SIGTERM' });
    expect(isRunning(launched.pid, { group: true })).toBe(false);
    expect(isRunning(child)).toBe(false);
    // Again: nothing left to do, same answer.
    expect(await launched.stop()).toEqual({ code: null, signal: 'SIGTERM' });
  });

  it('stop() sends SIGKILL after the grace period to a process that ignores SIGTERM', async () => {
    const launched = launch(parentOfChild(true));
    await childPid(() => launched.stdout());
    const started = performance.now();
    expect(await launched.stop({ graceMs: 300 })).toEqual({ code: null, signal: 'SIGKILL' });
    expect(performance.now() - started).toBeGreaterThanOrEqual(250);
    expect(isRunning(launched.pid, { group: true })).toBe(false);
  });

  it('signal() reaches the process itself only, and the child in its group keeps running until stop()', async () => {
    const launched = launch(parentOfChild(false));
    const child = await childPid(() => launched.stdout());
    launched.signal('SIGTERM');
    expect(await launched.exited).toEqual({ code: null, signal: 'SIGTERM' });
    expect(isRunning(child)).toBe(true);
    await launched.stop();
    expect(isRunning(child)).toBe(false);
  });

  it('pins the process to a core with taskset when given one', async () => {
    const launched = launch(node("console.log(require('node:fs').readFileSync('/proc/self/status', 'utf8').match(/Cpus_allowed_list:\\s*(\\S+)/)[1])"), {
      core: 0,
    });
    expect(await launched.exited, launched.stderr()).toEqual({ code: 0, signal: null });
    expect(launched.stdout().trim()).toBe('0');
    expect(launched.commandLine).toMatch(/^taskset -c 0 /);
  });
});
