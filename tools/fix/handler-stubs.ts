/**
 * Stubs for the handlers the typecheck says are missing: a new operation of the spec makes its
 * handler map incomplete (`Property 'getItem' is missing in type ... HandlerMap<...>`, or TS2739's
 * list of them). Each missing one gets `notImplemented(...)` in that map, so the build passes and
 * every request to the operation answers the contract's 500 with a log line naming the missing handler.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { appendToLiteral } from './object-literal.js';

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
  const stubs = missing.operationIds
    .map((id) => `\n  // Written by npm run fix: answers 500 "not implemented" until you write it.\n  ${id}: notImplemented('${id}', '${missing.file}'),`)
    .join('');
  let text = appendToLiteral(path, readFileSync(path, 'utf8'), missing.line, stubs);
  if (text === undefined)
    return {
      written: false,
      problem: `${missing.file}:${missing.line}: the handlers there are listed by hand, not in a map npm run fix can write to; add ${missing.operationIds.join(', ')} there (or spread the whole map: { ...handlers, ... })`,
    };
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
