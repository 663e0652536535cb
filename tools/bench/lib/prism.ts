// Prism serves the spec's first example; for the benchmark that example is the fixture page.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isObject, loadSpec } from '../../../src/contract/spec.js';
import type { ItemPage } from './fixture.js';
import { specPath } from './spec.js';

/** The example `POST /` answers with first (its `firstPage`). */
const FIRST_EXAMPLE = 'OwnItemsFirstPage';

/**
 * Writes a copy of the spec whose first `POST /` example is `page`, so the mock answers
 * with the same ten items as every other server. Nothing else in the copy differs.
 */
export function writeMockSpec(directory: string, page: ItemPage): string {
  const spec = loadSpec(specPath);
  const examples = spec.components['examples'];
  const example = isObject(examples) ? examples[FIRST_EXAMPLE] : undefined;
  if (!isObject(example)) throw new Error(`${specPath} has no components.examples.${FIRST_EXAMPLE} for the mock to serve`);
  example['value'] = JSON.parse(JSON.stringify(page)) as (typeof example)['value'];
  const file = join(directory, 'openapi.mock.json');
  writeFileSync(file, JSON.stringify(spec));
  return file;
}
