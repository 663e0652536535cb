import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../../tools/process/run-command.js';
import { copyProject } from '../../../tools/process/project-copy.js';
import { editSpec } from '../../helpers/spec-edits.js';

const FIXTURE = fileURLToPath(import.meta.url);
const project = copyProject('limits-check-');
afterAll(() => project.remove());

const accountSpec = join(project.root, 'openapi', 'account.yaml');

describe('npm run check, on a copy of the project whose x-limits is wrong', () => {
  it('fails its check:contracts step, naming the spec, the field and what is wrong', async () => {
    writeFileSync(accountSpec, editSpec(readFileSync(accountSpec, 'utf8'), [[/^( {4}idleSeconds:) 1800$/m, '$1 -1']], FIXTURE));
    const result = await runCommand([process.execPath, '--import', 'tsx', join(project.root, 'tools/check/check.ts'), 'check:contracts'], {
      cwd: project.root,
      env: { CHECK_CACHE: 'off' },
      timeoutMs: 120_000,
    });
    expect(result.code, result.stdout + result.stderr).toBe(1);
    expect(result.stdout).toMatch(/^FAIL {2}check:contracts /m);
    expect(result.stderr).toContain(
      'limits: FAILED, openapi/account.yaml: x-limits.session.idleSeconds must be an integer >= 1, found -1 (the schema of x-limits is in src/contract/limits.ts)',
    );
    expect(result.stderr).toContain('limits: ok, x-limits of openapi/openapi.yaml matches its schema');
  }, 150_000);
});
