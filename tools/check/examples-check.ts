import { readFileSync } from 'node:fs';
import { loadSpec, type OpenApiDocument } from '../../src/contract/spec.js';
import { displayPath } from './display-path.js';
import { createLineFinder } from './spec-locations.js';
import { findInvalidValueExamples, listValueExamples } from './value-examples.js';

export interface ExamplesResult {
  ok: boolean;
  /** One line per broken example: `file:line: header X (pointer): value, what is wrong`. */
  problems: string[];
  /** The whole report, ending with the fix. */
  message: string;
}

/**
 * Checks every header and parameter example of the spec against its schema, the
 * check Redocly makes for body examples only. A failure names the header or
 * parameter, the file and line of the example, and what to change.
 */
export function checkValueExamples(specPath: string): ExamplesResult {
  const specName = displayPath(specPath);
  let spec: OpenApiDocument;
  try {
    spec = loadSpec(specPath);
  } catch (error) {
    // A spec that does not parse (a half-made edit, or one saved while `npm run dev` checked the last): say where, not a stack.
    const problem = `${specName}: does not parse: ${error instanceof Error ? error.message.split('\n')[0]?.replace(/:$/, '') : String(error)}`;
    return { ok: false, problems: [problem], message: `${problem}\nFix the YAML at that line of ${specName} (npm run lint names it too).` };
  }
  const examples = listValueExamples(spec);
  const violations = findInvalidValueExamples(spec, examples);
  if (violations.length === 0) {
    return { ok: true, problems: [], message: `${examples.length} header and parameter examples in ${specName} match their schemas` };
  }
  const lineOf = createLineFinder(readFileSync(specPath, 'utf8'));
  const problems = violations.map(({ example, problems: details }) => {
    const line = lineOf(example.valueAt);
    return `${specName}${line === undefined ? '' : `:${line}`}: ${example.subject} (${example.valueAt}): ${JSON.stringify(example.value)} ${details.join('; ')}`;
  });
  return {
    ok: false,
    problems,
    message: [
      `${violations.length} header or parameter example${violations.length === 1 ? '' : 's'} in ${specName} break${violations.length === 1 ? 's' : ''} ${violations.length === 1 ? 'its' : 'their'} schema:`,
      ...problems.map((problem) => `  ${problem}`),
      `Fix the example (or the schema) at that line of ${specName}; the mock serves these examples and clients read them as documentation.`,
    ].join('\n'),
  };
}
