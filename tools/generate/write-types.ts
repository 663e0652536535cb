import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ContractPaths } from '../../src/contract/project.js';
import { renderTypes } from './render-types.js';

/**
 * Compiles the spec to types and writes them only when they differ from the file on
 * disk, so an unchanged result does not wake the editor's or tsc's file watchers.
 * Returns whether the file changed, what it held before (undefined when there was none) and what it holds now.
 */
export async function writeTypes(paths: ContractPaths): Promise<{ changed: boolean; previous: string | undefined; types: string }> {
  const types = await renderTypes(paths.spec);
  let current: string | undefined;
  try {
    current = readFileSync(paths.types, 'utf8');
  } catch {
    current = undefined;
  }
  if (current === types) return { changed: false, previous: current, types };
  mkdirSync(dirname(paths.types), { recursive: true });
  writeFileSync(paths.types, types);
  return { changed: true, previous: current, types };
}
