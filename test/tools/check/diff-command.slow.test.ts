import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../../tools/process/run-command.js';
import { copyProject } from '../../../tools/process/project-copy.js';
import { editSpec } from '../../helpers/spec-edits.js';

const FIXTURE = fileURLToPath(import.meta.url);
const project = copyProject('diff-command-');
afterAll(() => project.remove());

const specFile = join(project.root, 'openapi', 'openapi.yaml');
const releasedFile = join(project.root, 'openapi', 'released', 'openapi.yaml');
const changelogFile = join(project.root, 'CHANGELOG.md');
/** A script of the copy, as `npm run <script>` runs it there. */
const run = (entry: string) => runCommand([process.execPath, '--import', 'tsx', join(project.root, entry), '--api', 'main'], { cwd: project.root });

describe('npm run diff and npm run release:contracts, on a copy of the project', () => {
  it('fails on a removed enum value naming both fixes, passes once the major is raised and the notes say what breaks, and releases it', async () => {
    const released = readFileSync(releasedFile, 'utf8');
    writeFileSync(specFile, editSpec(readFileSync(specFile, 'utf8'), [[/enum: \[asc, desc\]/, 'enum: [asc]']], FIXTURE));

    const refused = await run('tools/check/diff.ts');
    expect(refused.code, refused.stdout + refused.stderr).toBe(1);
    expect(refused.stderr).toContain('can break clients built against');
    expect(refused.stderr).toContain("Enum of `sort` lost values: 'desc'. (enum-values-removed)");
    expect(refused.stderr).toMatch(/undo the change/);
    expect(refused.stderr).toMatch(/raise info\.version in openapi\/openapi\.yaml to \d+\.0\.0 and add a "## openapi\.yaml \d+\.0\.0/);

    const [, major] = /^ {2}version: (\d+)\.\d+\.\d+$/m.exec(readFileSync(specFile, 'utf8')) ?? [];
    const next = `${Number(major) + 1}.0.0`;
    writeFileSync(specFile, editSpec(readFileSync(specFile, 'utf8'), [[/^ {2}version: .+$/m, `  version: ${next}`]], FIXTURE));
    const withoutNotes = await run('tools/check/diff.ts');
    expect(withoutNotes.code).toBe(1);
    expect(withoutNotes.stderr).toContain('does not say what breaks');

    const notes = `## openapi.yaml ${next} (2026-12-01)\n\n### Breaking changes\n\n- \`sort\` takes only \`asc\`; send no \`sort\` or \`asc\`.\n\n`;
    writeFileSync(changelogFile, readFileSync(changelogFile, 'utf8').replace(/^## openapi\.yaml /m, `${notes}## openapi.yaml `));
    const accepted = await run('tools/check/diff.ts');
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(accepted.stdout).toContain(`released as the breaking version ${next}`);

    const release = await run('tools/check/release-contracts.ts');
    expect(release.code, release.stderr).toBe(0);
    expect(release.stdout).toContain(`released openapi.yaml ${next}`);
    expect(readFileSync(releasedFile, 'utf8')).not.toBe(released);
    expect(readFileSync(releasedFile, 'utf8')).toBe(readFileSync(specFile, 'utf8'));
    const after = await run('tools/check/diff.ts');
    expect(after.stdout).toContain('changes 0 major, 0 minor, 0 patch');
  }, 90_000);
});
