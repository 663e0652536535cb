import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readContractPaths } from '../../src/contract/project.js';
import { checkDrift } from '../../src/tooling/drift.js';
import { tsxCommand } from '../../src/process/commands.js';
import { runCommand } from '../../src/process/run-command.js';

const paths = readContractPaths();
const scratch = mkdtempSync(join(tmpdir(), 'drift-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A copy of the spec with a new sort value, as an API developer might leave it. */
function editedSpecCopy(): string {
  const copy = join(scratch, 'openapi.yaml');
  const edited = readFileSync(paths.spec, 'utf8').replace('enum: [asc, desc]', 'enum: [asc, desc, random]');
  expect(edited).not.toBe(readFileSync(paths.spec, 'utf8'));
  writeFileSync(copy, edited);
  return copy;
}

describe('the drift check', () => {
  it('passes when generated/ matches the spec', async () => {
    const result = await checkDrift(paths);
    expect(result).toMatchObject({ ok: true });
  });

  it('fails on an edited spec and names the command that fixes it', async () => {
    const result = await checkDrift({ spec: editedSpecCopy(), types: paths.types });
    expect(result.ok).toBe(false);
    expect(result.message).toContain('Run `npm run generate`');
    expect(result.message).toMatch(/first at line \d+/);
  });

  it('fails when the types file is missing', async () => {
    const result = await checkDrift({ spec: paths.spec, types: join(scratch, 'missing.d.ts') });
    expect(result).toMatchObject({ ok: false, message: expect.stringContaining('is missing') });
  });

  it('fails when the types were edited by hand', async () => {
    const types = join(scratch, 'edited.d.ts');
    copyFileSync(paths.types, types);
    writeFileSync(types, readFileSync(types, 'utf8').replace('nextCursor:', 'next_cursor:'));
    const result = await checkDrift({ spec: paths.spec, types });
    expect(result.ok).toBe(false);
  });

  it('exits 1 from the command line, with the fix on stderr', async () => {
    const result = await runCommand(tsxCommand('src/tooling/check-drift.ts', ['--spec', editedSpecCopy()]));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('npm run generate');
  });
});
