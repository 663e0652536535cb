import { relative } from 'node:path';
import { projectRoot } from '../../src/contract/project.js';

/**
 * Applies a test's edit to the spec's text, or fails saying the fixture needs
 * updating: when the spec no longer contains what the edit looks for, the test
 * would otherwise pass or fail for a reason that has nothing to do with its point.
 */
export function editSpec(text: string, edits: Array<[find: string | RegExp, replace: string]>, fixture: string): string {
  let edited = text;
  for (const [find, replace] of edits) {
    const next = edited.replace(find, replace);
    if (next === edited) {
      throw new Error(
        `update this fixture: ${relative(projectRoot, fixture)} edits the spec where it has ${String(find)}, and the spec no longer has it. ` +
          'Change the edit so that it applies to the current openapi/openapi.yaml and keeps the point of the test.',
      );
    }
    edited = next;
  }
  return edited;
}
