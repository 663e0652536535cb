import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { projectRoot } from '../../src/contract/project.js';
import { renderTypes } from '../generate/render-types.js';

export interface DriftResult {
  ok: boolean;
  message: string;
}

/** Compares the committed types with what the spec produces now. */
export async function checkDrift(paths: { spec: string; types: string }): Promise<DriftResult> {
  const expected = await renderTypes(paths.spec);
  let actual: string | undefined;
  try {
    actual = readFileSync(paths.types, 'utf8');
  } catch {
    actual = undefined;
  }
  const typesName = relative(projectRoot, paths.types);
  const specName = relative(projectRoot, paths.spec);
  if (actual === expected) {
    return { ok: true, message: `${typesName} is up to date with ${specName}` };
  }
  const why = actual === undefined ? 'is missing' : `differs from what ${specName} produces (${firstDifference(expected, actual)})`;
  return {
    ok: false,
    message: `${typesName} ${why}.\nRun \`npm run generate\` and commit the result.`,
  };
}

function firstDifference(expected: string, actual: string): string {
  const want = expected.split('\n');
  const got = actual.split('\n');
  for (let i = 0; i < Math.max(want.length, got.length); i++) {
    if (want[i] !== got[i]) {
      return `first at line ${i + 1}: expected ${JSON.stringify(want[i] ?? '<end of file>')}, found ${JSON.stringify(got[i] ?? '<end of file>')}`;
    }
  }
  return 'whitespace only';
}
