/**
 * Names the spec no longer has, still written in prose. A field renamed (`title` to `name`) or an
 * enum value dropped (`desc`) leaves its old name in descriptions, the decision table and the docs,
 * where no schema check looks. The names a contract had at its last release (`openapi/released/`)
 * and has no longer are the ones a reader may still meet; a backticked mention of one (`` `desc` ``)
 * in a description of the spec, the README or a page of `docs/` is stale. Names never in the spec
 * (`null`, `curl`) are never flagged, and once the change is released the old name leaves the list.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { type Contract, projectRoot } from '../../src/contract/project.js';
import { isObject, type Json, loadSpec } from '../../src/contract/spec.js';

/** Every name a document defines: components, properties, enum values, parameters, headers, operationIds, `x-limits` keys. */
export function specNames(document: Json): Set<string> {
  const names = new Set<string>();
  const walk = (node: Json | undefined, key: string | undefined): void => {
    if (Array.isArray(node)) {
      for (const entry of node) walk(entry, undefined);
      return;
    }
    if (!isObject(node)) return;
    if (Array.isArray(node['enum'])) for (const value of node['enum']) if (typeof value === 'string') names.add(value);
    if (typeof node['const'] === 'string') names.add(node['const']);
    if (typeof node['operationId'] === 'string') names.add(node['operationId']);
    if (typeof node['name'] === 'string' && typeof node['in'] === 'string') names.add(node['name']);
    for (const [child, value] of Object.entries(node)) {
      // Keys of these maps are names: schema properties, components of every kind, headers, x-limits.
      if (
        ['properties', 'schemas', 'headers', 'parameters', 'responses', 'examples', 'securitySchemes', 'x-limits'].includes(key ?? '') ||
        key?.startsWith('x-limits')
      )
        names.add(child);
      walk(value, key === 'x-limits' || key?.startsWith('x-limits') ? `x-limits.${child}` : child);
    }
  };
  walk(document, undefined);
  return names;
}

/** The prose of a document: every description and summary, with the JSON pointer it sits at. */
function prose(document: Json, at = ''): Array<{ at: string; text: string }> {
  if (Array.isArray(document)) return document.flatMap((entry, index) => prose(entry, `${at}/${index}`));
  if (!isObject(document)) return [];
  return Object.entries(document).flatMap(([key, value]) =>
    (key === 'description' || key === 'summary') && typeof value === 'string'
      ? [{ at: `${at}/${key}`, text: value }]
      : prose(value, `${at}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`),
  );
}

/** The pages that restate the contracts in prose: the README and `docs/` (not the ADRs, which keep their history). */
function pages(root: string): string[] {
  const docs = existsSync(join(root, 'docs')) ? readdirSync(join(root, 'docs')).filter((file) => file.endsWith('.md')) : [];
  return ['README.md', ...docs.map((file) => `docs/${file}`)].filter((file) => existsSync(join(root, file)));
}

/** A component schema's own names: its properties and enum values. */
function ownNames(schema: Json | undefined): Set<string> {
  if (!isObject(schema)) return new Set();
  const properties = isObject(schema['properties']) ? Object.keys(schema['properties']) : [];
  const values = Array.isArray(schema['enum']) ? schema['enum'].filter((value): value is string => typeof value === 'string') : [];
  return new Set([...properties, ...values]);
}

/**
 * A schema's prose names its own fields in plain words too ("an identifier, a title, its owner"):
 * a property or enum value the schema had at the release and has no longer, named as a word in the
 * schema's descriptions, is stale wherever else the word lives on.
 */
function schemaProblems(file: string, current: Json, released: Json): string[] {
  const schemas = (document: Json) =>
    isObject(document) && isObject(document['components']) && isObject(document['components']['schemas']) ? document['components']['schemas'] : {};
  const now = schemas(current);
  const then = schemas(released);
  const problems: string[] = [];
  for (const [name, schema] of Object.entries(now)) {
    const kept = ownNames(schema);
    const dropped = [...ownNames(then[name])].filter((old) => !kept.has(old) && old.length >= 3);
    for (const old of dropped) {
      const word = new RegExp(`\\b${old.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`, 'i');
      for (const { at, text } of prose(schema, `/components/schemas/${name}`))
        if (word.test(text)) problems.push(`update ${file} #${at}: it names ${old}, which ${name} had at its release and has no longer; say what it is now`);
    }
  }
  return problems;
}

export interface StaleNamesResult {
  ok: boolean;
  problems: string[];
  message: string;
}

/** Finds backticked names each contract dropped since its release, in its own descriptions and in the pages. */
export function checkStaleNames(
  contracts: readonly Contract[],
  root = projectRoot,
  read = (file: string) => readFileSync(join(root, file), 'utf8'),
): StaleNamesResult {
  const problems: string[] = [];
  const kept = new Set(contracts.flatMap((contract) => [...specNames(loadSpec(contract.spec))]));
  for (const contract of contracts) {
    let releasedSpec: Json;
    try {
      releasedSpec = loadSpec(contract.released);
    } catch {
      continue; // never released: nothing it dropped
    }
    const file = relative(root, contract.spec);
    const currentSpec = loadSpec(contract.spec);
    problems.push(...schemaProblems(file, currentSpec, releasedSpec));
    const released = specNames(releasedSpec);
    const dropped = new Set([...released].filter((name) => !kept.has(name)));
    if (dropped.size === 0) continue;
    const mention = /`([A-Za-z_][\w-]*)`/g;
    const reported = problems.join('\n');
    for (const { at, text } of prose(currentSpec)) {
      for (const [, name] of text.matchAll(mention))
        if (name && dropped.has(name) && !reported.includes(`${file} #${at}:`))
          problems.push(`update ${file} #${at}: \`${name}\` is no longer in the spec (it was at its release); say what it is now`);
    }
    for (const page of pages(root)) {
      const lines = read(page).split('\n');
      lines.forEach((line, index) => {
        for (const [, name] of line.matchAll(mention))
          if (name && dropped.has(name))
            problems.push(`update ${page}:${index + 1}: \`${name}\` is no longer in ${basename(contract.spec)} (it was at its release); say what it is now`);
      });
    }
  }
  return {
    ok: problems.length === 0,
    problems,
    message:
      problems.length === 0
        ? 'no description, README line or docs page names a field, parameter or enum value the specs dropped since their release'
        : [`${problems.length} mention${problems.length === 1 ? '' : 's'} of a dropped name:`, ...problems.map((problem) => `  ${problem}`)].join('\n'),
  };
}
