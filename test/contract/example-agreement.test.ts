import { describe, expect, it } from 'vitest';
import { readContracts } from '../../src/contract/project.js';
import { deref, HTTP_METHODS, isObject, type Json, loadSpec } from '../../src/contract/spec.js';

/**
 * The mock serves an answer's header examples with its first body example, so the two must tell
 * the same story: a bearer `WWW-Authenticate` example that explains a refusal (`error_description`) says
 * what the first problem example's `detail` says, and one that explains nothing goes with a first
 * example about missing credentials, as the server's challenge does.
 */
/** Each answer of a contract that pairs a bearer `WWW-Authenticate` example with a problem example. */
function challengedAnswers(file: string): Array<{ where: string; challenge: string; detail: string }> {
  const spec = loadSpec(file);
  const answers: Array<{ where: string; challenge: string; detail: string }> = [];
  for (const [path, item] of Object.entries(spec.paths)) {
    for (const method of HTTP_METHODS) {
      const operation = isObject(item) ? item[method] : undefined;
      const responses = isObject(operation) && isObject(operation['responses']) ? operation['responses'] : {};
      for (const [status, raw] of Object.entries(responses)) {
        const response = deref(spec, raw);
        const header = isObject(response['headers']) ? response['headers']['WWW-Authenticate'] : undefined;
        const challenge = header === undefined ? undefined : deref(spec, header)['example'];
        const media = isObject(response['content']) ? response['content']['application/problem+json'] : undefined;
        const examples = isObject(media) && isObject(media['examples']) ? Object.values(media['examples']) : [];
        const first = examples[0] === undefined ? undefined : deref(spec, examples[0] as Json)['value'];
        if (typeof challenge === 'string' && challenge.startsWith('Bearer') && isObject(first) && typeof first['detail'] === 'string')
          answers.push({ where: `${method.toUpperCase()} ${path} ${status}`, challenge, detail: first['detail'] });
      }
    }
  }
  return answers;
}

// Only the contracts that have such answers (the account API's session cookie has no bearer challenge); the public
// API must have them, or the check would hold nothing.
const challenged = readContracts().map((contract) => ({ ...contract, answers: challengedAnswers(contract.spec) }));
it('the public API pairs a bearer challenge with a problem example', () => {
  expect(challenged.find((contract) => contract.name === 'main')?.answers.length).toBeGreaterThan(0);
});

describe.each(challenged.filter((contract) => contract.answers.length > 0))('$name: the examples of an answer agree with each other', (contract) => {
  const { answers } = contract;
  it("WWW-Authenticate's example explains the first problem example", () => {
    for (const { where, challenge, detail } of answers) {
      const described = /error_description="([^"]*)"/.exec(challenge)?.[1];
      const message = `${where} in ${contract.spec}: the WWW-Authenticate example ${JSON.stringify(challenge)} and the first problem example (${JSON.stringify(detail)}) disagree; make the header example the challenge the server sends with that problem`;
      if (described === undefined) expect(detail, message).toMatch(/send|sign in|no .*(key|session|credential)/i);
      else expect(described, message).toBe(detail);
    }
  });
});
