import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type OperationContract, readOperations } from '../../src/contract/operations.js';
import { readContracts } from '../../src/contract/project.js';
import { compileSpecSchema, createSpecAjv, describeErrors } from '../../src/contract/schemas.js';
import { deref, isObject, type Json, loadSpec } from '../../src/contract/spec.js';
import { findInvalidValueExamples, listValueExamples } from '../../tools/check/value-examples.js';
import { binCommand } from '../../tools/process/commands.js';
import { runCommand } from '../../tools/process/run-command.js';

// Every expectation here is a rule of the contract or is derived from the spec, so adding an
// operation that follows the rules needs no edit here; a failure names what to change in the spec.
const SPEC_FILE = 'openapi/openapi.yaml';
const spec = loadSpec();
const operations = readOperations(spec);
const ajv = createSpecAjv(spec);
const scratch = mkdtempSync(join(tmpdir(), 'spec-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The three requests the source interface shows (docs/what-the-contract-decides.md); the spec may add more. */
const SOURCE_INTERFACE = ['POST /', 'POST /shared', 'GET /shared'];

const byId = (list: OperationContract[]) => list.map((operation) => [operation.operationId, operation] as const);
const rateLimitHeaders = Object.keys(isObject(spec.components['headers']) ? spec.components['headers'] : {}).filter((name) => name.startsWith('RateLimit-'));

describe('the OpenAPI document', () => {
  it('bundles into one self-contained OpenAPI 3.1 document', async () => {
    const output = join(scratch, 'bundle.json');
    const result = await runCommand(binCommand('redocly', ['bundle', 'main', '--config', 'redocly.yaml', '--output', output]));
    expect(result.code, `redocly bundle failed; fix the spec (\`npm run lint\` says where):\n${result.stderr}`).toBe(0);
    const bundled = JSON.parse(readFileSync(output, 'utf8')) as { openapi: string; paths: object };
    expect(bundled.openapi, `set \`openapi: 3.1.x\` at the top of ${SPEC_FILE}`).toMatch(/^3\.1\./);
    expect(Object.keys(bundled.paths), 'the bundle should keep every path of the spec').toEqual(Object.keys(spec.paths));
  });

  it('validates with no lint errors or warnings under redocly.yaml', async () => {
    const result = await runCommand(binCommand('redocly', ['lint', '--config', 'redocly.yaml', '--format', 'json']));
    let problems = result.stderr.trim();
    try {
      const report = JSON.parse(result.stdout) as {
        problems: Array<{ ruleId: string; message: string; location?: Array<{ source?: { ref?: string }; start?: { line: number } }> }>;
      };
      problems = report.problems
        .map(
          (problem) =>
            `  ${problem.location?.[0]?.source?.ref ?? SPEC_FILE}:${problem.location?.[0]?.start?.line ?? '?'} ${problem.message} (${problem.ruleId})`,
        )
        .join('\n');
    } catch {
      // Redocly prints no JSON report when the file does not parse; its stderr says why.
    }
    expect(result.code, `fix the spec; \`npm run lint\` reports:\n${problems}`).toBe(0);
  });

  it('compiles every component schema under strict JSON Schema 2020-12', () => {
    const schemas = spec.components['schemas'];
    expect(isObject(schemas), `${SPEC_FILE} should have components.schemas`).toBe(true);
    for (const name of Object.keys(schemas as object)) {
      expect(
        () => compileSpecSchema(ajv, { $ref: `#/components/schemas/${name}` }),
        `fix components.schemas.${name} in ${SPEC_FILE}: Ajv cannot compile it`,
      ).not.toThrow();
    }
  });
});

describe('every response schema of every contract', () => {
  // The server compiles a response validator when an answer first needs it (response-checker.ts): this is
  // where a schema Ajv cannot compile still fails before anything runs.
  it.each(readContracts().map((contract) => [contract.name, contract.spec] as const))('compiles under strict JSON Schema 2020-12: %s', (_name, file) => {
    const contractSpec = loadSpec(file);
    const bodies = createSpecAjv(contractSpec);
    const headers = createSpecAjv(contractSpec, { coerceTypes: true });
    let compiled = 0;
    for (const operation of readOperations(contractSpec)) {
      for (const [status, response] of Object.entries(operation.responses)) {
        for (const [mediaType, media] of Object.entries(response.content)) {
          expect(() => compileSpecSchema(bodies, media.schema), `fix the ${status} ${mediaType} schema of ${operation.operationId} in ${file}`).not.toThrow();
          compiled++;
        }
        for (const [name, header] of Object.entries(response.headers)) {
          expect(() => compileSpecSchema(headers, header.schema), `fix header ${name} of the ${status} of ${operation.operationId} in ${file}`).not.toThrow();
          compiled++;
        }
      }
    }
    expect(compiled).toBeGreaterThan(0);
  });
});

describe('the operations', () => {
  it('include the three requests of the source interface', () => {
    const declared = operations.map((operation) => `${operation.method} ${operation.path}`);
    const missing = SOURCE_INTERFACE.filter((request) => !declared.includes(request));
    expect(missing, `the source interface's requests must stay in ${SPEC_FILE}; restore ${missing.join(', ')}`).toEqual([]);
  });

  it.each(byId(operations))('%s has an id, summary, description and one tag', (id, operation) => {
    const raw = deref(spec, deref(spec, spec.paths[operation.path])[operation.method.toLowerCase()]);
    expect(raw['summary'], `add a summary to ${id} in ${SPEC_FILE}`).toEqual(expect.any(String));
    expect(raw['description'], `add a description to ${id} in ${SPEC_FILE}`).toEqual(expect.any(String));
    expect(raw['tags'], `give ${id} exactly one tag in ${SPEC_FILE}`).toHaveLength(1);
  });

  it.each(byId(operations))('%s is under HTTP bearer security', (id, operation) => {
    expect(operation.security, `${id} must be under bearerAuth (the global \`security\` of ${SPEC_FILE}); remove its own \`security\``).toEqual(['bearerAuth']);
    const scheme = deref(spec, deref(spec, spec.components['securitySchemes'])['bearerAuth']);
    expect(scheme, `components.securitySchemes.bearerAuth in ${SPEC_FILE} must be an HTTP bearer scheme`).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it.each(byId(operations.filter((operation) => operation.requestBody)))('%s requires its body, as JSON', (id, operation) => {
    expect(operation.requestBody?.required, `mark the request body of ${id} \`required: true\` in ${SPEC_FILE} (send \`{}\` for all defaults)`).toBe(true);
    expect(Object.keys(operation.requestBody?.content ?? {}), `the request body of ${id} is JSON only; the server answers anything else with 415`).toEqual([
      'application/json',
    ]);
  });

  // A GET beside a POST on the same path is its body-less form (GET /shared): the same options, from the query string.
  const mirrors = operations.flatMap((get) => {
    const post = operations.find((candidate) => candidate.method === 'POST' && candidate.path === get.path && candidate.requestBody);
    return get.method === 'GET' && post ? [[get.operationId, get, post] as const] : [];
  });
  it.each(mirrors)('%s takes the options of the POST on its path from the query string', (id, get, post) => {
    const body = deref(spec, post.requestBody?.content['application/json']?.schema);
    const fields = Object.keys(isObject(body['properties']) ? body['properties'] : {});
    const query = get.parameters.filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name);
    expect(query, `${id} should take as query parameters the body fields of ${post.operationId} (${fields.join(', ')}); align the two in ${SPEC_FILE}`).toEqual(
      fields,
    );
  });
});

describe('the examples', () => {
  const cases: Array<[string, Json, Json]> = [];
  for (const operation of operations) {
    for (const [mediaType, media] of Object.entries(operation.requestBody?.content ?? {})) {
      for (const [name, value] of Object.entries(media.examples)) cases.push([`${operation.operationId} request ${mediaType} ${name}`, media.schema, value]);
    }
    for (const [status, response] of Object.entries(operation.responses)) {
      for (const [mediaType, media] of Object.entries(response.content)) {
        for (const [name, value] of Object.entries(media.examples))
          cases.push([`${operation.operationId} ${status} ${mediaType} ${name}`, media.schema, value]);
      }
    }
  }

  it('exist for every request body and every response', () => {
    for (const operation of operations) {
      for (const media of Object.values(operation.requestBody?.content ?? {})) {
        expect(
          Object.keys(media.examples).length,
          `add a named example to the request body of ${operation.operationId} in ${SPEC_FILE} (the mock and the contract suite use them)`,
        ).toBeGreaterThan(0);
      }
      for (const response of Object.values(operation.responses)) {
        for (const media of Object.values(response.content)) {
          expect(
            Object.keys(media.examples).length,
            `add a named example to the ${response.status} of ${operation.operationId} in ${SPEC_FILE} (the mock serves it)`,
          ).toBeGreaterThan(0);
        }
      }
    }
  });

  it.each(cases)('%s validates against its schema (Ajv)', (name, schema, value) => {
    const validate = compileSpecSchema(ajv, schema);
    expect(validate(value) ? [] : describeErrors(validate.errors), `fix the example ${name} in ${SPEC_FILE} (\`npm run lint\` shows its line)`).toEqual([]);
  });

  // Redocly checks body examples only; headers and parameters are checked here and by `npm run check:examples`.
  it.each(listValueExamples(spec).map((example) => [`${example.subject} at ${example.valueAt}`, example] as const))(
    '%s validates against its schema, read as a string',
    (_, example) => {
      const problems = findInvalidValueExamples(spec, [example]).flatMap((violation) => violation.problems);
      expect(problems, `fix the example at ${example.valueAt} in ${SPEC_FILE} (\`npm run check:examples\` shows its line)`).toEqual([]);
    },
  );

  it('of an error carry the status of the response they illustrate', () => {
    for (const operation of operations) {
      for (const [status, response] of Object.entries(operation.responses)) {
        for (const [name, value] of Object.values(response.content).flatMap((media) => Object.entries(media.examples))) {
          if (isObject(value) && 'status' in value)
            expect(String(value['status']), `set \`status: ${status}\` in the example ${name} of ${operation.operationId} ${status} in ${SPEC_FILE}`).toBe(
              status,
            );
        }
      }
    }
  });
});

describe('the responses', () => {
  const errors = operations.flatMap((operation) =>
    Object.values(operation.responses)
      .filter((response) => Number(response.status) >= 400)
      .map((response) => [`${operation.operationId} ${response.status}`, response] as const),
  );

  it.each(errors)('%s is application/problem+json with the Problem schema', (name, response) => {
    const fix = `answer ${name} with \`$ref: '#/components/responses/...'\` or as application/problem+json with the Problem schema in ${SPEC_FILE}`;
    expect(Object.keys(response.content), fix).toEqual(['application/problem+json']);
    expect(response.content['application/problem+json']?.schema, fix).toEqual({ $ref: '#/components/schemas/Problem' });
  });

  it('declare the components RateLimit-* headers', () => {
    expect(
      rateLimitHeaders.length,
      `${SPEC_FILE} should declare RateLimit-* headers under components.headers (the server sends them on every answer to a known key)`,
    ).toBeGreaterThan(0);
  });

  it.each(byId(operations))('%s documents WWW-Authenticate on 401, Retry-After and RateLimit-* on 429, and RateLimit-* on its 2xx', (id, operation) => {
    expect(
      operation.responses['401']?.headers['WWW-Authenticate']?.required,
      `document 401 with a required WWW-Authenticate header on ${id} in ${SPEC_FILE} ($ref: '#/components/responses/Unauthorized')`,
    ).toBe(true);
    expect(
      Object.keys(operation.responses['429']?.headers ?? {}).sort(),
      `document 429 with Retry-After and ${rateLimitHeaders.join(', ')} on ${id} in ${SPEC_FILE} ($ref: '#/components/responses/TooManyRequests')`,
    ).toEqual(['Retry-After', ...rateLimitHeaders].sort());
    const successes = Object.values(operation.responses).filter((response) => response.status.startsWith('2'));
    expect(successes.length, `document a 2xx answer for ${id} in ${SPEC_FILE}`).toBeGreaterThan(0);
    for (const response of successes) {
      expect(Object.keys(response.headers).sort(), `add the headers ${rateLimitHeaders.join(', ')} to the ${response.status} of ${id} in ${SPEC_FILE}`).toEqual(
        expect.arrayContaining(rateLimitHeaders),
      );
    }
  });

  // What the server answers before any handler runs: on every request 401, 422 (unknown query parameters), 429, 500 and
  // 503 (the database away); on a request with a body also 400 (not JSON), 413 (too large) and 415 (not application/json).
  it.each(byId(operations))('%s documents every error the server can answer it with', (id, operation) => {
    const expected = ['401', '422', '429', '500', '503', ...(operation.requestBody ? ['400', '413', '415'] : [])];
    const missing = expected.filter((status) => !(status in operation.responses));
    expect(missing, `document ${missing.join(', ')} on ${id} in ${SPEC_FILE} ($ref the shared components.responses)`).toEqual([]);
  });

  it.each(byId(operations))('%s documents 503 with Retry-After (any request may find the database away)', (id, operation) => {
    expect(Object.keys(operation.responses['503']?.headers ?? {}), `${id} in ${SPEC_FILE}: $ref components.responses.ServiceUnavailable`).toEqual([
      'Retry-After',
    ]);
  });
});
