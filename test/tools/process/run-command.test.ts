import { describe, expect, it } from 'vitest';
import { binCommand, compiledCommand, tsxCommand } from '../../../tools/process/commands.js';
import { runCommand } from '../../../tools/process/run-command.js';
import { projectRoot } from '../../../src/contract/project.js';

describe('runCommand', () => {
  it('returns the exit code and both streams, and does not throw on a failure', async () => {
    const result = await runCommand([process.execPath, '-e', "console.log('out'); console.error('err'); process.exit(4)"]);
    expect(result).toEqual({ code: 4, signal: null, stdout: 'out\n', stderr: 'err\n' });
  });

  it('kills the command after timeoutMs', async () => {
    const result = await runCommand([process.execPath, '-e', 'setTimeout(() => {}, 10_000)'], { timeoutMs: 100 });
    expect(result).toMatchObject({ code: null, signal: 'SIGKILL' });
  });

  it('kills the command when its cancelSignal aborts', async () => {
    const cancel = new AbortController();
    setTimeout(() => cancel.abort(), 100);
    const started = performance.now();
    const result = await runCommand([process.execPath, '-e', 'setTimeout(() => {}, 10_000)'], { cancelSignal: cancel.signal });
    expect(result).toMatchObject({ code: null, signal: 'SIGKILL' });
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('runs in the project root by default', async () => {
    expect((await runCommand(['pwd'])).stdout.trim()).toBe(projectRoot);
  });
});

describe('command lines', () => {
  it.each([
    { given: tsxCommand('src/cli/keys.ts', ['list']), want: [process.execPath, '--import', 'tsx', `${projectRoot}/src/cli/keys.ts`, 'list'] },
    { given: compiledCommand('src/server/main.ts'), want: [process.execPath, `${projectRoot}/dist/src/server/main.js`] },
    { given: binCommand('redocly', ['lint']), want: [`${projectRoot}/node_modules/.bin/redocly`, 'lint'] },
  ])('$want.0 …', ({ given, want }) => {
    expect(given).toEqual(want);
  });
});
