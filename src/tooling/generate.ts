import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { projectRoot, readContractPaths } from '../contract/project.js';
import { renderTypes } from './render-types.js';

const paths = readContractPaths();
const types = await renderTypes(paths.spec);
mkdirSync(dirname(paths.types), { recursive: true });
writeFileSync(paths.types, types);
console.log(`wrote ${relative(projectRoot, paths.types)} from ${relative(projectRoot, paths.spec)}`);
