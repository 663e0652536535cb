/**
 * Stubs for the handlers the typecheck says are missing: a new operation of the spec makes its
 * handler map incomplete (`Property 'getItem' is missing in type ... HandlerMap<...>`, or TS2739's
 * list of them). Each missing one gets `notImplemented(...)` in that map, so the build passes and
 * every request to the operation answers the contract's 500 with a log line naming the missing handler.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { relative, resolve } from 'node:path';

// TypeScript 5's API (TypeScript 7 has none yet; ADR 0009), to find the handler map's object literal.
const ts = createRequire(import.meta.url)('typescript') as typeof import('typescript');

/** One handler map the typecheck found incomplete: the file, the line of its declaration, the operations it lacks. */
export interface MissingHandlers {
  file: string;
  line: number;
  operationIds: string[];
}

/** Reads `tsc --pretty false` output for handler maps that lack operations. */
export function missingHandlers(output: string, root: string): MissingHandlers[] {
  const found = new Map<string, MissingHandlers>();
  for (const line of output.split('\n')) {
    const match = /^(.+?)\((\d+),\d+\): error TS(2741|2739|2740): (.*HandlerMap<.*)$/.exec(line.trim());
    if (!match) continue;
    const [, file = '', row = '0', code, message = ''] = match;
    const ids =
      code === '2741'
        ? [/^Property '([^']+)' is missing/.exec(message)?.[1]]
        : (/missing the following properties from type '[^']*': (.*?)(?:, and \d+ more)?$/.exec(message)?.[1] ?? '').split(', ');
    const key = `${file}:${row}`;
    const entry = found.get(key) ?? { file: relative(root, resolve(root, file)), line: Number(row), operationIds: [] };
    entry.operationIds.push(...ids.filter((id): id is string => typeof id === 'string' && /^\w+$/.test(id)));
    found.set(key, entry);
  }
  return [...found.values()].filter((entry) => entry.operationIds.length > 0);
}

/**
 * Writes a stub for each missing handler at the end of its map, and imports `notImplemented` where it is not yet.
 * Where the typecheck points at no map it can write to (an object built in a function, as a test double does),
 * it writes nothing and says what to do there instead.
 */
export function writeStubs(root: string, missing: MissingHandlers): { written: true } | { written: false; problem: string } {
  const path = resolve(root, missing.file);
  let text = readFileSync(path, 'utf8');
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  let literal: import('typescript').ObjectLiteralExpression | undefined;
  const visit = (node: import('typescript').Node): void => {
    if (literal) return;
    if (ts.isVariableDeclaration(node) && node.initializer && ts.isObjectLiteralExpression(node.initializer)) {
      const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      if (line === missing.line) literal = node.initializer;
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  if (!literal)
    return {
      written: false,
      problem: `${missing.file}:${missing.line}: the handlers there are listed by hand, not in a map npm run fix can write to; add ${missing.operationIds.join(', ')} there (or spread the whole map: { ...handlers, ... })`,
    };
  const properties = literal.properties;
  const last = properties[properties.length - 1];
  const stubs = missing.operationIds
    .map((id) => `\n  // Written by npm run fix: answers 500 "not implemented" until you write it.\n  ${id}: notImplemented('${id}', '${missing.file}'),`)
    .join('');
  if (!last) {
    const at = literal.getStart(source) + 1;
    text = `${text.slice(0, at)}${stubs}\n${text.slice(at)}`;
  } else if (properties.hasTrailingComma) {
    const at = text.indexOf(',', last.getEnd()) + 1;
    text = `${text.slice(0, at)}${stubs}${text.slice(at)}`;
  } else {
    const at = last.getEnd();
    text = `${text.slice(0, at)},${stubs}${text.slice(at)}`;
  }
  if (!/\bnotImplemented\b.*from/.test(text)) {
    const module = relative(resolve(path, '..'), resolve(root, 'src/http/not-implemented.js'));
    const specifier = module.startsWith('.') ? module : `./${module}`;
    const lastImport = [...text.matchAll(/^import .*;$/gm)].at(-1);
    const insertAt = lastImport ? (lastImport.index ?? 0) + lastImport[0].length + 1 : 0;
    text = `${text.slice(0, insertAt)}import { notImplemented } from '${specifier}';\n${text.slice(insertAt)}`;
  }
  writeFileSync(path, text);
  return { written: true };
}
