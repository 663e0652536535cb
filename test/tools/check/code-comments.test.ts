import { describe, expect, it } from 'vitest';
import { commentRuns } from '../../../tools/check/code-comments.js';

const texts = (source: string) => commentRuns(source).map((run) => run.text);

describe('the comments of a TypeScript file, as the copies check reads them', () => {
  it('takes block comments and line comments, each where the file has it', () => {
    const source = ['/** A. */', 'const a = 1; // B', 'const b = 2;'].join('\n');
    const runs = commentRuns(source);
    expect(runs.map((run) => run.text)).toEqual(['/** A. */', '// B']);
    for (const run of runs) expect(source.startsWith(run.text, run.start)).toBe(true);
  });

  it('joins line comments on consecutive lines into one run, so a sentence across them is one', () => {
    expect(texts(['  // 600 requests', '  // per 60 s', '', '  // apart'].join('\n'))).toEqual(['// 600 requests\n  // per 60 s', '// apart']);
    // Code between two line comments ends the run.
    expect(texts(['// one', 'x();', '// two'].join('\n'))).toEqual(['// one', '// two']);
  });

  it('takes no // or /* inside a string, a template or a regular expression for a comment', () => {
    const source = [
      "const url = 'http://example.com/*';",
      'const quoted = "// not a comment";',
      'const template = `a ${`b // ${"c"}`} /* d */`;',
      'const pattern = /[\'"]\\/\\/[/*]/g; // after a regex',
      'const ratio = width / height; // after a division',
    ].join('\n');
    expect(texts(source)).toEqual(['// after a regex', '// after a division']);
  });

  it('resumes a template after its ${...} and finds the comment after it', () => {
    expect(texts('const t = `x ${{ a: 1 }.a} // still text`; // after')).toEqual(['// after']);
  });
});
