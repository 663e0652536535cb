import { isAbsolute, relative } from 'node:path';
import { projectRoot } from '../../src/contract/project.js';

/** A path as a developer would type it from the project root; absolute when it lies outside. */
export function displayPath(file: string): string {
  const fromRoot = relative(projectRoot, file);
  return fromRoot === '' || fromRoot.startsWith('..') || isAbsolute(fromRoot) ? file : fromRoot;
}
