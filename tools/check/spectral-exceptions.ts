/**
 * The exceptions of `.spectral.yaml` that excuse nothing: an override whose place
 * (`openapi/openapi.yaml#/components/schemas/Item/properties/title`) no spec has any more. After a rename
 * the rule it turned off fires at the new place, and Spectral's finding there reads as "edit the spec",
 * when the edit that was meant is the exception's: point it at the new place, or remove it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse } from 'yaml';
import { type Contract, projectRoot } from '../../src/contract/project.js';
import { isObject, type Json, loadSpec } from '../../src/contract/spec.js';
import { createLineFinder } from './spec-locations.js';

export const RULESET = '.spectral.yaml';

/** A place a spec no longer has, named by an override of `.spectral.yaml`. */
export interface StaleException {
  /** The line of `.spectral.yaml` that names it. */
  line: number;
  /** As written: `openapi/openapi.yaml#/components/schemas/Item/properties/title`. */
  place: string;
  /** The rules it turns off there. */
  rules: string[];
  /** Keys the place's parent has now and had not at the release: where the exception probably meant to go. */
  newSiblings: string[];
}

/** An override's file pattern as a regular expression: `*` within one folder, `**` across them. */
function glob(pattern: string): RegExp {
  const source = pattern
    .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
    .replaceAll('**', '\0')
    .replaceAll('*', '[^/]*')
    .replaceAll('\0', '.*');
  return new RegExp(`^${source}$`);
}

function segments(pointer: string): string[] {
  return pointer
    .replace(/^\//, '')
    .split('/')
    .filter((segment) => segment !== '')
    .map((segment) => decodeURIComponent(segment).replaceAll('~1', '/').replaceAll('~0', '~'));
}

function get(document: Json | undefined, path: readonly string[]): Json | undefined {
  let node = document;
  for (const segment of path) node = Array.isArray(node) ? node[Number(segment)] : isObject(node) ? node[segment] : undefined;
  return node;
}

/** A spec as `.spectral.yaml` names it (`openapi/openapi.yaml`, relative to the project root), as it is and at its release. */
export interface NamedSpec {
  file: string;
  current: Json;
  released?: Json | undefined;
}

/**
 * The override places of `.spectral.yaml` (its text) that none of the specs they name has. A pattern that names
 * none of `specs` is left alone: those are the only specs this can look in. Each spec's release tells what the
 * place's parent gained since, to suggest where the exception meant to go.
 */
export function staleExceptions(rulesetText: string, specs: readonly NamedSpec[]): StaleException[] {
  const ruleset = parse(rulesetText) as { overrides?: Array<{ files?: string[]; rules?: Record<string, unknown> }> } | null;
  const lineOf = createLineFinder(rulesetText);
  const stale: StaleException[] = [];
  (ruleset?.overrides ?? []).forEach((override, index) => {
    (override.files ?? []).forEach((place, entry) => {
      const [pattern = '', pointer] = place.split('#');
      if (pointer === undefined) return; // a whole file: nothing in it can go missing
      const path = segments(pointer);
      const named = specs.filter(({ file }) => glob(pattern).test(file));
      if (named.length === 0 || named.some(({ current }) => get(current, path) !== undefined)) return;
      const parent = path.slice(0, -1);
      const newSiblings = named.flatMap(({ current, released }) => {
        const now = get(current, parent);
        const then = get(released, parent);
        return isObject(now) ? Object.keys(now).filter((key) => !(isObject(then) && key in then)) : [];
      });
      stale.push({
        line: lineOf(`#/overrides/${index}/files/${entry}`) ?? 1,
        place,
        rules: Object.keys(override.rules ?? {}),
        newSiblings: [...new Set(newSiblings)],
      });
    });
  });
  return stale;
}

/** One line per stale exception, as the checks print their findings: the place, why it excuses nothing, and the edit. */
export function describeStaleException({ line, place, rules, newSiblings }: StaleException): string {
  const [pattern, pointer = ''] = place.split('#');
  const parent = pointer.split('/').slice(0, -1).join('/');
  const meant =
    newSiblings.length === 1
      ? `point it at ${pattern}#${parent}/${newSiblings[0]} (new since the release) if that is the place it meant, or remove it`
      : 'point it at the place it meant, or remove it';
  return `update ${RULESET}:${line}: the exception for ${place} (${rules.join(', ')} off) is stale: no spec has that place any more, so it excuses nothing and the rule fires wherever the place went; ${meant}`;
}

/** A finding of Spectral, as `spectral.ts` reports it: its rule and the place in the spec (relative to the project root). */
interface Finding {
  file: string;
  code: string;
  path: ReadonlyArray<string | number>;
}

/**
 * What to say beside a Spectral finding that a stale exception explains: its rule is one the exception turned
 * off, at a place under the same parent (`Item/properties/name` where the exception names `Item/properties/title`).
 * The finding then asks for an edit of `.spectral.yaml`, not of the spec. Undefined when no stale exception fits.
 */
export function staleExceptionNote(finding: Finding, stale: readonly StaleException[]): string | undefined {
  const at = finding.path.map(String);
  const fits = stale.find(({ place, rules }) => {
    const [pattern = '', pointer = ''] = place.split('#');
    const parent = segments(pointer).slice(0, -1);
    return rules.includes(finding.code) && glob(pattern).test(finding.file) && parent.every((segment, index) => at[index] === segment);
  });
  if (!fits) return undefined;
  const here = `#/${at.map((segment) => segment.replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`;
  return `stale exception: ${RULESET}:${fits.line} turns this rule off at #${fits.place.split('#')[1]}, which the spec no longer has; point that exception at ${here} if this is the place it meant, or remove it and fix the spec`;
}

/** The stale exceptions of the project at `root`: its `.spectral.yaml` against its contracts as they are and at their release. */
export function readStaleExceptions(contracts: readonly Contract[], root = projectRoot): StaleException[] {
  const ruleset = join(root, RULESET);
  if (!existsSync(ruleset)) return [];
  const specs = contracts.map((contract) => ({
    file: relative(root, contract.spec),
    current: loadSpec(contract.spec) as Json,
    released: existsSync(contract.released) ? (loadSpec(contract.released) as Json) : undefined,
  }));
  return staleExceptions(readFileSync(ruleset, 'utf8'), specs);
}
