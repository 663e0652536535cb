import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { readContractPaths } from '../../../src/contract/project.js';
import { checkDrift } from '../../../tools/check/drift.js';
import { editSpec } from '../../helpers/spec-edits.js';
import { tsxCommand } from '../../../tools/process/commands.js';
import { runCommand } from '../../../tools/process/run-command.js';

const paths = readContractPaths();
const scratch = mkdtempSync(join(tmpdir(), 'drift-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A copy of the spec with a schema added, as an API developer might leave it before regenerating. */
function editedSpecCopy(): string {
  const copy = join(scratch, 'openapi.yaml');
  writeFileSync(
    copy,
    editSpec(readFileSync(paths.spec, 'utf8'), [[/^ {2}schemas:\n/m, '  schemas:\n    DriftProbe:\n      type: string\n']], fileURLToPath(import.meta.url)),
  );
  return copy;
}

describe('the drift check', () => {
  it('passes when generated/ matches the spec', async () => {
    const result = await checkDrift(paths);
    expect(result.ok, result.message).toBe(true);
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
    const edited = readFileSync(types, 'utf8').replace(/\n(\s+)(\w+)(\??):/, '\n$1$2_edited$3:');
    expect(edited, `update this fixture: ${paths.types} has no property line to edit`).not.toBe(readFileSync(types, 'utf8'));
    writeFileSync(types, edited);
    const result = await checkDrift({ spec: paths.spec, types });
    expect(result.ok).toBe(false);
    expect(result.message).toContain('Run `npm run generate`');
  });

  it('exits 1 from the command line, with the fix on stderr', async () => {
    const result = await runCommand(tsxCommand('tools/check/check-drift.ts', ['--spec', editedSpecCopy()]));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('npm run generate');
  });
});
