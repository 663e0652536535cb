/**
 * The comments of a TypeScript file, as the copies check reads them: a comment that says "600 requests per
 * 60 s" restates the spec as much as a page of `docs/` does, and goes stale the same way. The code beside it
 * reads the spec, so only the comments are prose. A small lexer, not the compiler: it knows strings, template
 * literals and regular expressions well enough not to take a `//` inside one for a comment, which is all a
 * search for restated values needs (and loading TypeScript would cost the check a third of a second).
 */

/** A run of comments: one block comment, or `//` comments on consecutive lines, as the file has it. */
export interface CommentRun {
  /** Where it starts in the file (characters). */
  start: number;
  /** The file's text from the first comment's start to the last one's end. */
  text: string;
}

/** A `/` after one of these (or at the start) begins a regular expression, not a division. */
const BEFORE_REGEX = /(?:^|[(,=:[!&|?{};+\-*%<>~^]|\b(?:return|typeof|case|do|else|in|of|new|delete|void|throw|yield|await))\s*$/;

/** In code, the characters that may start a comment, a string, a template or a regular expression, or close a template's `${`. */
const SIGNIFICANT = /[/'"`{}]/g;
/** The rest of a string from after its opening quote, or of a template's text up to its end or its next `${`. */
const REST: Record<string, RegExp> = {
  "'": /(?:\\.|[^'\\\n])*'?/y,
  '"': /(?:\\.|[^"\\\n])*"?/y,
  '`': /(?:\\[\s\S]|[^`\\$]|\$(?!\{))*(?:`|\$\{)?/y,
  '/': /(?:\\.|\[(?:\\.|[^\]\\\n])*\]|[^/\\[\n])*\/?/y,
};

/** Every comment of `text`, consecutive line comments joined into one run. */
export function commentRuns(text: string): CommentRun[] {
  const comments: Array<{ start: number; end: number; line: boolean }> = [];
  /** The brace depth at each open `${`, innermost last: the `}` back at that depth resumes its template. */
  const templates: number[] = [];
  let depth = 0;
  let index = 0;
  /** Moves past the rest of a string, template text or regular expression that starts at `index`; true when a template stopped at `${`. */
  const skip = (kind: string): boolean => {
    const rest = REST[kind] as RegExp;
    rest.lastIndex = index;
    const match = rest.exec(text)?.[0] ?? '';
    index += match.length;
    return kind === '`' && match.endsWith('${');
  };
  for (;;) {
    SIGNIFICANT.lastIndex = index;
    const found = SIGNIFICANT.exec(text);
    if (!found) break;
    index = found.index;
    const char = found[0];
    const next = text[index + 1];
    if (char === '/' && (next === '/' || next === '*')) {
      const end = next === '/' ? text.indexOf('\n', index) : text.indexOf('*/', index + 2);
      const stop = end < 0 ? text.length : next === '/' ? end : end + 2;
      comments.push({ start: index, end: stop, line: next === '/' });
      index = stop;
      continue;
    }
    index++;
    if (char === '{') depth++;
    else if (char === '}') {
      depth--;
      if (templates.at(-1) === depth) {
        templates.pop();
        if (skip('`')) templates.push(depth++);
      }
    } else if (char === '`') {
      if (skip('`')) templates.push(depth++);
    } else if (char !== '/' || BEFORE_REGEX.test(text.slice(Math.max(0, index - 11), index - 1))) skip(char);
  }
  const runs: CommentRun[] = [];
  let last: { start: number; end: number; line: boolean } | undefined;
  for (const comment of comments) {
    // A line comment on the line after the previous one, with nothing but indentation between, continues its run.
    if (last?.line && comment.line && /^\n[ \t]*$/.test(text.slice(last.end, comment.start))) {
      const run = runs.at(-1);
      if (run) run.text = text.slice(run.start, comment.end);
    } else runs.push({ start: comment.start, text: text.slice(comment.start, comment.end) });
    last = comment;
  }
  return runs;
}
