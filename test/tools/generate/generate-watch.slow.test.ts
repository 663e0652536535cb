import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { launch } from '../../../tools/process/launch.js';
import { copyProject } from '../../../tools/process/project-copy.js';
import { editSpec } from '../../helpers/spec-edits.js';

const FIXTURE = fileURLToPath(import.meta.url);
const project = copyProject('generate-watch-');
afterAll(() => project.remove());

describe('npm run generate -- --watch', () => {
  it('regenerates the types on every save of the spec, says so, and stops on Ctrl-C', async () => {
    const specFile = join(project.root, 'openapi', 'openapi.yaml');
    const typesFile = join(project.root, 'generated', 'openapi.d.ts');
    const original = readFileSync(specFile, 'utf8');
    // The copy's own generator, from the copy: it finds the copy as its project root.
    let output = '';
    const child = launch([process.execPath, '--import', 'tsx', 'tools/generate/generate.ts', '--watch'], {
      cwd: project.root,
      onOutput: (text) => {
        output += text;
      },
    });
    const waitFor = async (pattern: RegExp, from: number) => {
      const deadline = Date.now() + 15_000;
      while (!pattern.test(output.slice(from))) {
        if (Date.now() > deadline || child.exitStatus() !== undefined)
          throw new Error(`generate --watch printed nothing matching ${pattern}. Its output:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    };
    try {
      await waitFor(/watching openapi\/ for changes/, 0);

      let mark = output.length;
      writeFileSync(specFile, editSpec(original, [['enum: [asc, desc]', 'enum: [asc, desc, random]']], FIXTURE));
      await waitFor(/wrote generated\/openapi\.d\.ts from openapi\/openapi\.yaml in [\d.]+ s/, mark);
      expect(readFileSync(typesFile, 'utf8')).toContain('"random"');

      mark = output.length;
      writeFileSync(specFile, `${original}\n  broken: [`);
      await waitFor(/could not compile openapi\/openapi\.yaml: /, mark);

      mark = output.length;
      writeFileSync(specFile, original);
      await waitFor(/wrote generated\/openapi\.d\.ts/, mark);
      expect(readFileSync(typesFile, 'utf8')).not.toContain('"random"');
    } finally {
      child.signal('SIGINT');
    }
    expect(await child.exited).toEqual({ code: 0, signal: null });
  });
});
