import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { readOperations } from '../../src/contract/operations.js';
import { readSpecSource } from '../../src/contract-suite/spec/spec-source.js';
import { CORPUS_ROOT, corpusDocuments, failuresOf, runOnPrism, structuralErrors } from './corpus/corpus.js';

/**
 * The suite as a tester for any OpenAPI document (issue 23): every valid 3.0/3.1 document of
 * `@readme/oas-examples` (third-party examples, Swagger Petstore among them), served by Prism.
 * No crash, a report for every operation, and every failure that remains listed in
 * `corpus/expectations.yaml` with its reason: a new failure fails this test, and so does a listed
 * one that no longer occurs (then delete its line).
 */
interface Expectations {
  reasons: Record<string, string>;
  invalid: string[];
  documents: Record<string, Record<string, string>>;
}
const expectations = parse(readFileSync(new URL('./corpus/expectations.yaml', import.meta.url), 'utf8')) as Expectations;
const documents = corpusDocuments();
const valid: string[] = [];
for (const document of documents) if ((await structuralErrors(document)).length === 0) valid.push(document);

describe('the corpus of @readme/oas-examples', () => {
  it('has the valid documents the expectations assume (a structurally invalid one is not run)', () => {
    expect(documents.filter((document) => !valid.includes(document))).toEqual(expectations.invalid);
    expect(valid.length).toBeGreaterThan(45);
  });

  it('gives every listed failure a reason', () => {
    for (const [document, failures] of Object.entries(expectations.documents))
      for (const [id, reason] of Object.entries(failures)) expect(expectations.reasons[reason], `${document}: ${id}: reason ${reason}`).toBeDefined();
  });
});

describe.each(valid)('the suite against Prism serving %s', (document) => {
  it('runs without a crash, reports every operation, and fails only where expectations.yaml says why', async () => {
    const report = await runOnPrism(document);
    const source = await readSpecSource(join(CORPUS_ROOT, document));
    const operations = readOperations(source.spec, { nameless: 'method-path' });
    expect(report.unreachable, 'Prism did not answer').toBeUndefined();
    expect(report.operations.map((operation) => operation.operationId)).toEqual(operations.map((operation) => operation.operationId));
    const listed = expectations.documents[document] ?? {};
    const found = failuresOf(report);
    expect(
      found.filter((failure) => !(failure.case in listed)).map((failure) => `${failure.case}: ${failure.message}`),
      'a failure expectations.yaml does not list: fix the suite, or list it there with the reason Prism deviates',
    ).toEqual([]);
    expect(
      Object.keys(listed).filter((id) => !found.some((failure) => failure.case === id)),
      'listed in expectations.yaml but no longer failing: delete it there',
    ).toEqual([]);
  }, 180_000);
});
