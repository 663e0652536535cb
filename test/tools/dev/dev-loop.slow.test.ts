import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LaunchedProcess, launch } from '../../../tools/process/launch.js';
import { copyProject } from '../../../tools/process/project-copy.js';
import { editSpec } from '../../helpers/spec-edits.js';

const FIXTURE = fileURLToPath(import.meta.url);
const project = copyProject('dev-loop-');
const specFile = join(project.root, 'openapi', 'openapi.yaml');
const typesFile = join(project.root, 'generated', 'openapi.d.ts');
const originalSpec = readFileSync(specFile, 'utf8');

let dev: LaunchedProcess;
let output = '';
const serverPids = new Set<number>();

/** Waits until the loop's output, after `from`, matches; fails with everything it printed. */
async function waitForOutput(pattern: RegExp, from: number, timeoutMs = 20_000): Promise<RegExpExecArray> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const match = pattern.exec(output.slice(from));
    if (match) return match;
    if (Date.now() > deadline || dev.exitStatus() !== undefined) {
      throw new Error(`npm run dev printed nothing matching ${pattern} within ${timeoutMs / 1000} s. Its output:\n${output.slice(from) || '(nothing)'}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Saves the spec as an editor would, and returns where the loop's output stood before the save. */
function saveSpec(text: string): number {
  const mark = output.length;
  writeFileSync(specFile, text);
  return mark;
}

async function answers(url: string): Promise<number | string> {
  try {
    return (await fetch(`${url}/shared`)).status;
  } catch (error) {
    return (error as { cause?: { code?: string } }).cause?.code ?? 'failed';
  }
}

beforeAll(async () => {
  // The copy's own dev loop, from the copy: it finds the copy as its project root.
  dev = launch([process.execPath, '--import', 'tsx', 'tools/dev/main.ts'], {
    cwd: project.root,
    env: { PORT: '0', DATABASE_PATH: ':memory:', LOG_LEVEL: 'warn' },
    onOutput: (chunk) => {
      output += chunk;
      for (const match of chunk.matchAll(/server (?:started|restarted) in [\d.]+ s \(pid (\d+)[^)]*\)/g)) serverPids.add(Number(match[1]));
    },
  });
  // The first check is a cold typecheck of the whole copy: a minute and more on a busy 2-core machine.
  await waitForOutput(/ready: waiting for saves/, 0, 150_000);
}, 180_000);

afterAll(async () => {
  await dev.stop({ signal: 'SIGINT', graceMs: 2_000 });
  // Should the loop have failed to stop them, its servers lead their own process groups.
  for (const pid of serverPids) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // already gone, as it should be
    }
  }
  project.remove();
});

describe('npm run dev', () => {
  let url = '';

  it('starts the server and checks the project once', async () => {
    url = (await waitForOutput(/server started in [\d.]+ s \(pid \d+\): (\S+)/, 0))[1]!;
    expect(output, 'the first check should pass on an unchanged copy of the project').toMatch(/all checks pass/);
    expect(await answers(url)).toBe(401);
  });

  it('says which handler a renamed operation breaks, and keeps the last good server', async () => {
    const typesBefore = readFileSync(typesFile, 'utf8');
    const saved = performance.now();
    const mark = saveSpec(editSpec(originalSpec, [[/operationId: listSharedItemsByQuery$/m, 'operationId: listSharedItemsViaQuery']], FIXTURE));
    // Types are written before the typecheck, so the editor sees them at once.
    while (readFileSync(typesFile, 'utf8') === typesBefore && performance.now() - saved < 5000) await new Promise((resolve) => setTimeout(resolve, 5));
    const typesOnDiskMs = performance.now() - saved;
    expect(typesOnDiskMs, `the types reached disk ${Math.round(typesOnDiskMs)} ms after the save`).toBeLessThan(1000);
    console.info(`spec save to new types on disk: ${Math.round(typesOnDiskMs)} ms`);

    await waitForOutput(/not restarted/, mark, 60_000);
    const report = output.slice(mark);
    expect(report).toMatch(/types regenerated in [\d.]+ s \([\d.]+ s after the save\)/);
    expect(report).toMatch(/typecheck failed/);
    expect(report).toMatch(/src\/server\/\S+\.ts:\d+:\d+ /);
    expect(report).toMatch(/fix: operation listSharedItemsByQuery is now listSharedItemsViaQuery in the spec: rename its handler in src\/server\/\S+\.ts/);
    expect(report).toContain(`the last good server is still running at ${url}`);
    expect(await answers(url)).toBe(401);
  });

  it('names the header and the line of a header example that breaks its schema', async () => {
    const mark = saveSpec(editSpec(originalSpec, [[/(RateLimit-Limit:\n(?: {6}.*\n)*? {6}example:) 600/, '$1 many']], FIXTURE));
    await waitForOutput(/not restarted/, mark);
    expect(output.slice(mark)).toMatch(
      /examples failed:\n\[dev\] {3}openapi\/openapi\.yaml:\d+: header RateLimit-Limit \(#\/components\/headers\/RateLimit-Limit\/example\): "many" must be integer/,
    );
  });

  it('names the place and the rule when the spec fails lint', async () => {
    const mark = saveSpec(editSpec(originalSpec, [[/( {6}summary: [^\n]+\n)/, '$1      bogus: true\n']], FIXTURE));
    await waitForOutput(/not restarted/, mark);
    expect(output.slice(mark)).toMatch(
      /lint failed:\n\[dev\] {3}openapi\/openapi\.yaml:\d+:\d+ Property `bogus` is not expected here\. \(struct\)\n\[dev\] {3}fix: fix the spec at openapi\/openapi\.yaml:\d+:\d+/,
    );
  });

  it('restarts the server once the spec is fixed, with the spare that loaded the code before the save', async () => {
    const mark = saveSpec(originalSpec);
    // Only the spec changed since the last run: the next server is the spare, which reads the spec now.
    const restarted = await waitForOutput(/server restarted in [\d.]+ s \(pid \d+, its code loaded before the save\): (\S+)/, mark);
    await waitForOutput(/all checks pass, server restarted/, mark);
    // The types are those the last typecheck passed (the lint failure before changed no type): its verdict stands.
    expect(output.slice(mark)).toContain('typecheck of src/ ok (no code changed since it last ran)');
    url = restarted[1]!;
    expect(await answers(url)).toBe(401);
  });

  it('stops a check that a newer save made stale, then serves the newest; Spectral reports beside it without holding the server back', async () => {
    const source = join(project.root, 'src', 'server', 'operations.ts');
    const original = readFileSync(source, 'utf8');
    const mark = output.length;
    writeFileSync(source, `${original}\n// a first save\n`);
    await waitForOutput(/src\/server\/operations\.ts changed/, mark);
    // While that save is being checked, the spec gains a body field with a bare string (an OWASP finding, not a type error).
    const saved = performance.now();
    saveSpec(
      editSpec(
        originalSpec,
        [
          [
            /( {4}ListRequest:\n(?: {6}.*\n)*? {6}properties:\n)/,
            '$1        tag:\n          type: string\n          maxLength: 40\n          description: Only items with this tag.\n',
          ],
        ],
        FIXTURE,
      ),
    );
    await waitForOutput(/a newer save came in: this check stopped/, mark);
    const restarted = await waitForOutput(/all checks pass, server restarted/, mark, 60_000);
    console.info(`a save during a check, to the newest server serving: ${Math.round(performance.now() - saved)} ms`);
    expect(restarted).toBeDefined();
    await waitForOutput(
      /security lint \(Spectral, OWASP\): 1 finding, not holding the server back[^\n]*\n\[dev\] {3}openapi\/openapi\.yaml:\d+:\d+ owasp:api4:2023-string-restricted/,
      mark,
      60_000,
    );
    writeFileSync(source, original);
    const back = saveSpec(originalSpec);
    url = (await waitForOutput(/server restarted in [\d.]+ s \(pid \d+[^)]*\): (\S+)/, back, 60_000))[1]!;
  });

  it('keeps the last good server when the saved code typechecks but does not start, and says why', async () => {
    const source = join(project.root, 'src', 'server', 'operations.ts');
    const original = readFileSync(source, 'utf8');
    const mark = output.length;
    writeFileSync(source, `${original}\nif (process.pid > 0) throw new Error('a start-up failure made on purpose');\n`);
    await waitForOutput(/not restarted: the last good server is still running/, mark, 60_000);
    const report = output.slice(mark);
    expect(report).toMatch(/the server ended \(exit code 1\) before listening/);
    expect(report).toContain('a start-up failure made on purpose');
    expect(report).toContain(`the last good server is still running at ${url}`);
    expect(await answers(url)).toBe(401);
    const back = output.length;
    writeFileSync(source, original);
    // A save in src/ makes the spare stale: the next server loads the saved code (no "loaded before the save").
    url = (await waitForOutput(/server restarted in [\d.]+ s \(pid \d+\): (\S+)/, back, 60_000))[1]!;
    expect(await answers(url)).toBe(401);
  });

  it('stops the server with it on Ctrl-C', async () => {
    dev.signal('SIGINT');
    expect(await dev.exited).toEqual({ code: 0, signal: null });
    expect(await answers(url)).toBe('ECONNREFUSED');
  });
});
