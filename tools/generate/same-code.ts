import ts from 'typescript';

/**
 * Whether two TypeScript texts are the same program: equal once TypeScript has parsed each and printed it without
 * comments. A save that edits only prose in the spec (a summary, a description) changes the generated types only in
 * their doc comments; `npm run dev` then knows the typecheck's last verdict still stands. Parsed, not scanned: a
 * scanner alone can take the text of a template literal for a comment.
 */
export function sameCode(left: string, right: string): boolean {
  if (left === right) return true;
  return printed(left) === printed(right);
}

const printer = ts.createPrinter({ removeComments: true });

function printed(text: string): string {
  const file = ts.createSourceFile('types.d.ts', text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  // Text that does not parse is compared as it is: only an identical text is then the same.
  const broken = (file as unknown as { parseDiagnostics?: unknown[] }).parseDiagnostics?.length ?? 0;
  return broken > 0 ? `unparsed\n${text}` : printer.printFile(file);
}
