import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { projectRoot, readContracts } from '../contract/project.js';
import { renderTypes } from './render-types.js';

for (const paths of readContracts()) {
  const types = await renderTypes(paths.spec);
  mkdirSync(dirname(paths.types), { recursive: true });
  writeFileSync(paths.types, types);
  console.log(`wrote ${relative(projectRoot, paths.types)} from ${relative(projectRoot, paths.spec)}`);
}
