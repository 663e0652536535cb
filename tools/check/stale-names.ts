/**
 * Names the spec no longer has, still written in prose. A field renamed (`title` to `name`) or an
 * enum value dropped (`desc`) leaves its old name in descriptions, the decision table and the docs,
 * where no schema check looks. The names a contract had at its release (`openapi/released/`) and has
 * no longer are the ones a reader may still meet:
 * - a backticked name no schema has any more (`` `desc` ``), anywhere in a description, the README or `docs/`;
 * - a name one schema dropped while another keeps it (`Item.title` renamed, `Problem.title` kept), where the
 *   prose around it is about the schema that dropped it (`prose-scope.ts`), and in that schema's own descriptions;
 * - an exception of `.spectral.yaml` whose place the spec no longer has (`spectral-exceptions.ts`).
 * Names never in the spec (`null`, `curl`) are never flagged, and once the change is released the old name leaves
 * the list. The sentences that explain this check quote such names on purpose, and are declared (`EXPLAINED`).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { type Contract, projectRoot } from '../../src/contract/project.js';
import { isObject, type Json, loadSpec } from '../../src/contract/spec.js';
import { type Owner, owner, scopedMentions } from './prose-scope.js';
import { describeStaleException, RULESET, staleExceptions } from './spectral-exceptions.js';

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

/** A document's component schemas by name. */
const schemasOf = (document: Json): Record<string, Json> =>
  isObject(document) && isObject(document['components']) && isObject(document['components']['schemas']) ? document['components']['schemas'] : {};

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
function schemaProblems(file: string, current: Json, released: Json): Array<{ place: string; name: string; problem: string }> {
  const now = schemasOf(current);
  const then = schemasOf(released);
  const problems: Array<{ place: string; name: string; problem: string }> = [];
  for (const [name, schema] of Object.entries(now)) {
    const kept = ownNames(schema);
    const dropped = [...ownNames(then[name])].filter((old) => !kept.has(old) && old.length >= 3);
    for (const old of dropped) {
      const word = new RegExp(`\\b${old.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`, 'i');
      for (const { at, text } of prose(schema, `/components/schemas/${name}`))
        if (word.test(text))
          problems.push({
            place: `${file} #${at}`,
            name: old,
            problem: `it names ${old}, which ${name} had at its release and has no longer; say what it is now`,
          });
    }
  }
  return problems;
}

/**
 * The passages that explain this check by the names it finds: quoting a dropped name there is the point, not
 * a stale mention. Each is one sentence, found by its opening words; an exemption whose sentence is gone is
 * reported, so it cannot outlive its text or come to cover another.
 */
const EXPLAINED: ReadonlyArray<{ page: string; opening: string }> = [
  { page: 'docs/editing-the-contract.md', opening: 'A field renamed or an enum value dropped since the release is looked for in prose too' },
];

/** The characters of `text` that the explaining passages of `page` cover, as [start, end) pairs, or undefined when one is missing. */
function explained(page: string, text: string): Array<[number, number]> | undefined {
  const ranges: Array<[number, number]> = [];
  for (const { opening } of EXPLAINED.filter((passage) => passage.page === page)) {
    const start = text.indexOf(opening);
    if (start < 0) return undefined;
    const end = /[.!?](?=\s|$)/.exec(text.slice(start));
    ranges.push([start, end ? start + end.index + 1 : text.length]);
  }
  return ranges;
}

/** A name a schema had at its release and has no longer, with every schema that has or had a field or value so named. */
interface SchemaDrop {
  spec: string;
  schema: string;
  name: string;
  /** What the name was in the schema, for the message. */
  kind: 'field' | 'value';
  owners: Owner[];
}

/** Each schema's dropped names, even those another schema keeps (`Item.title` while `Problem.title` lives). */
function schemaDrops(specs: ReadonlyArray<{ file: string; current: Json; released: Json | undefined }>): SchemaDrop[] {
  const everyVersion = specs.flatMap(({ current, released }) => [schemasOf(current), ...(released === undefined ? [] : [schemasOf(released)])]);
  const ownersOf = (name: string) =>
    [
      ...new Set(
        everyVersion.flatMap((schemas) =>
          Object.entries(schemas)
            .filter(([, schema]) => ownNames(schema).has(name))
            .map(([schema]) => schema),
        ),
      ),
    ].map(owner);
  return specs.flatMap(({ file, current, released }) => {
    if (released === undefined) return [];
    const now = schemasOf(current);
    return Object.entries(schemasOf(released)).flatMap(([schema, then]) => {
      if (!(schema in now)) return [];
      const kept = ownNames(now[schema]);
      return [...ownNames(then)]
        .filter((name) => !kept.has(name) && name.length >= 3)
        .map((name) => ({
          spec: file,
          schema,
          name,
          kind: isObject(then) && Array.isArray(then['enum']) && then['enum'].includes(name) ? ('value' as const) : ('field' as const),
          owners: ownersOf(name),
        }));
    });
  });
}

export interface StaleNamesResult {
  ok: boolean;
  problems: string[];
  message: string;
}

/**
 * Finds the names each contract dropped since its release: a backticked name no schema has any more, anywhere in
 * its descriptions and the pages; a name one schema dropped while another keeps it, where the prose is about that
 * schema (`prose-scope.ts`); and the exceptions of `.spectral.yaml` whose place the spec no longer has.
 */
export function checkStaleNames(
  contracts: readonly Contract[],
  root = projectRoot,
  read = (file: string) => readFileSync(join(root, file), 'utf8'),
): StaleNamesResult {
  const problems: string[] = [];
  const reported = new Set<string>();
  /** One problem per name and place: a description or a page's line found by two of the searches below is named once. */
  const report = (place: string, name: string, problem: string) => {
    if (reported.has(`${place} ${name}`)) return;
    reported.add(`${place} ${name}`);
    problems.push(`update ${place}: ${problem}`);
  };
  const specs = contracts.map((contract) => {
    let released: Json | undefined;
    try {
      released = loadSpec(contract.released);
    } catch {
      released = undefined; // never released: nothing it dropped
    }
    return { contract, file: relative(root, contract.spec), current: loadSpec(contract.spec) as Json, released };
  });
  const kept = new Set(specs.flatMap(({ current }) => [...specNames(current)]));
  const texts = pages(root).map((page) => {
    const text = read(page);
    const exempt = explained(page, text);
    if (!exempt)
      problems.push(
        `update tools/check/stale-names.ts: ${page} no longer has the passage EXPLAINED exempts; point it at the passage that explains this check now`,
      );
    const lineOf = (index: number) => text.slice(0, index).split('\n').length;
    const quoted = (index: number) => (exempt ?? []).some(([start, end]) => index >= start && index < end);
    return { page, text, lineOf, quoted };
  });

  for (const { file, current, released } of specs) {
    if (released !== undefined) for (const problem of schemaProblems(file, current, released)) report(problem.place, problem.name, problem.problem);
  }
  for (const { file, current, released } of specs) {
    if (released === undefined) continue;
    const dropped = new Set([...specNames(released)].filter((name) => !kept.has(name)));
    if (dropped.size === 0) continue;
    const mention = /`([A-Za-z_][\w-]*)`/g;
    for (const { at, text } of prose(current))
      for (const [, name] of text.matchAll(mention))
        if (name && dropped.has(name)) report(`${file} #${at}`, name, `\`${name}\` is no longer in the spec (it was at its release); say what it is now`);
    for (const { page, text, lineOf, quoted } of texts)
      for (const match of text.matchAll(mention))
        if (match[1] && dropped.has(match[1]) && !quoted(match.index))
          report(`${page}:${lineOf(match.index)}`, match[1], `\`${match[1]}\` is no longer in ${basename(file)} (it was at its release); say what it is now`);
  }
  for (const { spec, schema, name, kind, owners } of schemaDrops(specs)) {
    const what = (backticked: boolean) => (backticked ? `\`${name}\`` : `"${name}"`);
    for (const { at, text } of prose(specs.find((entry) => entry.file === spec)?.current ?? null))
      for (const { backticked } of scopedMentions(text, name, schema, owners))
        report(
          `${spec} #${at}`,
          name,
          `${what(backticked)} here is ${schema}'s ${kind} (the prose around it is about ${schema}), which ${schema} had at its release and has no longer; say what it is now`,
        );
    for (const { page, text, lineOf, quoted } of texts)
      for (const { index, backticked } of scopedMentions(text, name, schema, owners))
        if (!quoted(index))
          report(
            `${page}:${lineOf(index)}`,
            name,
            `${what(backticked)} here is ${schema}'s ${kind} (the prose around it is about ${schema}), which ${basename(spec)}'s ${schema} had at its release and has no longer; say what it is now`,
          );
  }
  const ruleset = rulesetText(read);
  if (ruleset !== undefined) for (const stale of staleExceptions(ruleset, specs)) problems.push(describeStaleException(stale));
  return {
    ok: problems.length === 0,
    problems,
    message:
      problems.length === 0
        ? 'no description, README line or docs page names a field, parameter or enum value the specs dropped since their release, and every exception of .spectral.yaml names a place the specs have'
        : [
            `${problems.length} place${problems.length === 1 ? ' names' : 's name'} what the specs dropped since their release:`,
            ...problems.map((problem) => `  ${problem}`),
          ].join('\n'),
  };
}

/** `.spectral.yaml` as written, or undefined when the project has none. */
function rulesetText(read: (file: string) => string): string | undefined {
  try {
    return read(RULESET);
  } catch {
    return undefined;
  }
}
