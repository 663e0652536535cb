/**
 * The object literal a typecheck error points at, and a way to add properties at its end: shared by the
 * handler stubs (a handler map) and the client's list routes (`LIST_ROUTES`), which `npm run fix` writes.
 */
import { createRequire } from 'node:module';
import type { Node, ObjectLiteralExpression, SourceFile } from 'typescript';

// TypeScript 5's API (TypeScript 7 has none yet; ADR 0009), to find the object literal.
const ts = createRequire(import.meta.url)('typescript') as typeof import('typescript');

/**
 * The object literal of the variable the error at `line` (1-based) is about: the line of its declaration (a
 * handler map), or of the type it `satisfies` (`LIST_ROUTES`). `as` and `satisfies` around it are looked through.
 */
function literalAt(source: SourceFile, line: number): ObjectLiteralExpression | undefined {
  let found: ObjectLiteralExpression | undefined;
  const lineOf = (node: Node) => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  const visit = (node: Node): void => {
    if (found) return;
    if (ts.isVariableDeclaration(node) && node.initializer) {
      let value: Node = node.initializer;
      const at = [lineOf(node)];
      while (ts.isSatisfiesExpression(value) || ts.isAsExpression(value) || ts.isParenthesizedExpression(value)) {
        if (ts.isSatisfiesExpression(value)) at.push(lineOf(value.type));
        value = value.expression;
      }
      if (ts.isObjectLiteralExpression(value) && at.includes(line)) found = value;
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** `text` with `properties` (each `\n  name: value,`) added at the end of the object literal over `line`, or undefined when there is none. */
export function appendToLiteral(path: string, text: string, line: number, properties: string): string | undefined {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const literal = literalAt(source, line);
  if (!literal) return undefined;
  const last = literal.properties[literal.properties.length - 1];
  if (!last) {
    const at = literal.getStart(source) + 1;
    return `${text.slice(0, at)}${properties}\n${text.slice(at)}`;
  }
  if (literal.properties.hasTrailingComma) {
    const at = text.indexOf(',', last.getEnd()) + 1;
    return `${text.slice(0, at)}${properties}${text.slice(at)}`;
  }
  const at = last.getEnd();
  return `${text.slice(0, at)},${properties}${text.slice(at)}`;
}
