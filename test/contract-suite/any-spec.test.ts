import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bufferedIo } from '../../src/cli/io.js';
import type { ParameterContract } from '../../src/contract/operations.js';
import type { Json } from '../../src/contract/spec.js';
import { runContract } from '../../src/contract-suite/command.js';
import { Credentials } from '../../src/contract-suite/credentials.js';
import { formatJunit } from '../../src/contract-suite/junit.js';
import { formatReport } from '../../src/contract-suite/report.js';
import { rulesOf } from '../../src/contract-suite/rules.js';
import { runContractSuite, type SuiteReport } from '../../src/contract-suite/run.js';
import { readSpecSource } from '../../src/contract-suite/spec/spec-source.js';
import { serializeHeader, serializePairs, serializePath } from '../../src/contract-suite/wire/parameters.js';
import { fakePets, type PetFault } from './fixtures/foreign/fake-pets.js';

/**
 * The suite on a spec that is not this project's (issue 23): an OpenAPI 3.0 document with an
 * external `$ref`, no operationId on one operation, 3.0's `nullable` and boolean
 * `exclusiveMinimum`, an unknown format, HTTP Basic, an API key in the query, a form body and an
 * XML answer, against an in-process implementation that is strict about the wire.
 */
const PETS = fileURLToPath(new URL('./fixtures/foreign/pets-30.yaml', import.meta.url));
const SWAGGER = fileURLToPath(new URL('./fixtures/foreign/swagger-20.yaml', import.meta.url));
const source = await readSpecSource(PETS);
const CREDENTIALS = { basicAuth: 'user:pass', keyInQuery: 'k123' };

function runPets(faults: PetFault[] = [], extra: Partial<Parameters<typeof runContractSuite>[0]> = {}): Promise<SuiteReport> {
  return runContractSuite({
    spec: source.spec,
    foreign: { unknownFormats: source.unknownFormats, notes: source.notes, openapi: source.version },
    baseUrl: 'http://pets.test',
    credentials: CREDENTIALS,
    allowWrites: true,
    fetch: fakePets(faults),
    ...extra,
  });
}

const failed = (report: SuiteReport) =>
  report.results.filter((result) => result.outcome === 'fail').map((result) => `${result.id}: ${result.findings.map((finding) => finding.message).join('; ')}`);

describe('reading a foreign OpenAPI document', () => {
  it('bundles its external $ref, gives it empty components where it has none, and rewrites 3.0 schemas to 2020-12', () => {
    expect(source.version).toBe('3.0');
    const response = (source.spec.paths['/pets'] as { get: { responses: Record<string, Json> } }).get.responses['200'] as Json;
    expect(JSON.stringify(response)).not.toContain('pet.yaml');
    const pet = JSON.stringify(source.spec);
    expect(pet).toContain('"nickname":{"type":["string","null"]}');
    expect(pet).toContain('"exclusiveMinimum":0');
    expect(pet).not.toContain('"nullable"');
  });

  it('notes the formats no validator knows instead of failing on them', () => {
    expect(source.unknownFormats).toEqual(['uriref']);
    expect(source.notes.join('\n')).toContain('uriref');
  });

  it('refuses Swagger 2.0 and a missing file as bad usage, saying why', async () => {
    await expect(readSpecSource(SWAGGER)).rejects.toThrow(/Swagger 2\.0: the contract suite reads OpenAPI 3\.0 and 3\.1 documents/);
    await expect(readSpecSource('/nonexistent/openapi.yaml')).rejects.toThrow(/cannot read the spec/);
  });
});

describe('the suite on it, against an implementation that follows it', async () => {
  const report = await runPets();

  it('passes, with a report for every operation, the one without operationId named by method and path', () => {
    expect(failed(report), formatReport(report)).toEqual([]);
    expect(report.operations.map((operation) => operation.operationId)).toEqual(['GET /pets', 'addPet', 'deletePet']);
    for (const operation of report.operations) expect(operation.passed, operation.operationId).toBeGreaterThan(0);
    expect(formatReport(report)).toMatch(/^GET \/pets$/m);
  });

  it("assumes none of this project's conventions: no rule, no closed query, invalid input refused with any 4xx", () => {
    expect(report.spec.rules).toEqual([]);
    expect(report.results.some((result) => result.family === 'unknown-field')).toBe(false);
    expect(report.results.some((result) => result.family === 'other-method' || result.family === 'body-too-large')).toBe(false);
    const malformed = report.results.find((result) => result.id === 'deletePet negative wrong-type path/petId');
    expect(malformed).toMatchObject({ outcome: 'pass', status: 400, expectedStatus: 400 });
  });

  it('sends each credential where its scheme says, and shows none of them in the report', () => {
    const list = report.results.find((result) => result.id === 'GET /pets positive minimal-request');
    expect(list?.request?.headers['Authorization']).toBe('Basic $CREDENTIAL_basicAuth');
    const add = report.results.find((result) => result.id === 'addPet positive minimal-request');
    expect(add?.request?.url).toContain('api_key=$CREDENTIAL_keyInQuery');
    expect(JSON.stringify(report)).not.toMatch(/k123|dXNlcjpwYXNz/);
  });

  it('writes the array query parameter as the spec serializes it, a form body, and an Accept header JSON first', () => {
    const list = report.results.find((result) => result.id === 'GET /pets positive minimal-request');
    expect(list?.request?.url).toMatch(/\?tags=[ab]$/);
    expect(list?.request?.headers['Accept']).toBe('application/json, application/xml;q=0.5');
    const add = report.results.find((result) => result.id === 'addPet positive minimal-request');
    expect(add?.request).toMatchObject({ headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: expect.stringMatching(/^name=/) });
  });

  it('refuses a missing Basic credential with the documented 401, and tries an unknown one', () => {
    expect(
      report.results
        .filter((result) => result.operationId === 'GET /pets' && result.polarity === 'negative' && result.expectedStatus === 401)
        .map((r) => r.outcome),
    ).toEqual(['pass', 'pass', 'pass', 'pass']);
  });

  it('does not fail a second delete answered with the documented 404', () => {
    const again = report.results.find((result) => result.id === 'deletePet positive field-values query/force');
    expect(again).toMatchObject({ outcome: 'pass' });
  });
});

describe('the suite against planted faults', () => {
  it.each<{ fault: PetFault; want: RegExp }>([
    { fault: 'pet-without-name', want: /^GET \/pets positive minimal-request: body\/0\/name is required$/m },
    { fault: 'ignores-auth', want: /^GET \/pets negative no-authorization: .*expected 401, got 200/m },
    { fault: 'accepts-empty-name', want: /^addPet negative too-short body\/name: .*expected a 4xx \(such as 400\), got 201/m },
  ])('finds $fault', async ({ fault, want }) => {
    expect(failed(await runPets([fault])).join('\n')).toMatch(want);
  });

  it('finds an answer slower than --max-response-time', async () => {
    const report = await runPets(['slow'], { maxResponseTimeMs: 5 });
    expect(report.results.find((result) => result.findings.some((finding) => finding.category === 'time'))?.findings[0]?.message).toMatch(
      /answered in \d+ ms, over --max-response-time 5 ms/,
    );
  });
});

describe('credentials', () => {
  it('checks a credential that must be refused (--refused-credential) gets the documented 401', async () => {
    const report = await runPets([], { refusedCredentials: [{ scheme: 'basicAuth', value: 'revoked:key' }] });
    expect(report.results.find((result) => result.id === 'GET /pets negative refused-credential basicAuth#1')).toMatchObject({ outcome: 'pass', status: 401 });
    const open = await runPets(['ignores-auth'], { refusedCredentials: [{ scheme: 'basicAuth', value: 'revoked:key' }] });
    expect(open.results.find((result) => result.id === 'GET /pets negative refused-credential basicAuth#1')).toMatchObject({ outcome: 'fail', status: 200 });
  });

  it('skips, with the reason, every case of an operation whose scheme it has no credential for', async () => {
    const report = await runPets([], { credentials: { basicAuth: 'user:pass' } });
    const skipped = report.results.filter((result) => result.operationId === 'addPet' && result.outcome === 'skip');
    expect(skipped.length).toBeGreaterThan(0);
    expect(skipped[0]?.note).toBe('skipped: no credential for the security scheme keyInQuery (give --credential keyInQuery=<value>)');
  });

  it('places an API key in a cookie, and a bearer token', () => {
    const spec = {
      ...source.spec,
      components: { securitySchemes: { c: { type: 'apiKey', in: 'cookie', name: 'sid' }, b: { type: 'http', scheme: 'bearer' } } },
    };
    const credentials = new Credentials(spec, { byScheme: { c: 'abc', b: 'tok' } });
    const operation = { operationId: 'x', method: 'GET', path: '/', security: ['c', 'b'], securityRequirements: [['c', 'b']], parameters: [], responses: {} };
    const wire = { headers: {}, query: [], cookies: [] };
    credentials.apply(operation, wire);
    expect(wire).toEqual({ headers: { Authorization: 'Bearer tok' }, query: [], cookies: [['sid', 'abc']] });
  });
});

// The examples of OpenAPI 3.1 §4.8.12.4 ("Style Examples"): color = "blue", ["blue","black","brown"], {R:100,G:200,B:150}.
describe('parameter serialization', () => {
  const parameter = (location: string, style: string, explode: boolean): ParameterContract => ({
    name: 'color',
    in: location,
    required: false,
    schema: {},
    style,
    explode,
  });
  const array = ['blue', 'black', 'brown'];
  const object = { R: 100, G: 200, B: 150 };
  it.each([
    { style: 'simple', explode: false, value: array, want: 'blue,black,brown' },
    { style: 'simple', explode: true, value: object, want: 'R=100,G=200,B=150' },
    { style: 'simple', explode: false, value: object, want: 'R,100,G,200,B,150' },
    { style: 'label', explode: false, value: array, want: '.blue,black,brown' },
    { style: 'label', explode: true, value: array, want: '.blue.black.brown' },
    { style: 'label', explode: true, value: object, want: '.R=100.G=200.B=150' },
    { style: 'matrix', explode: false, value: 'blue', want: ';color=blue' },
    { style: 'matrix', explode: true, value: array, want: ';color=blue;color=black;color=brown' },
    { style: 'matrix', explode: true, value: object, want: ';R=100;G=200;B=150' },
    { style: 'matrix', explode: false, value: object, want: ';color=R,100,G,200,B,150' },
  ])('path, $style, explode $explode: $want', ({ style, explode, value, want }) => {
    expect(serializePath(parameter('path', style, explode), value)).toBe(want);
  });

  it.each([
    { style: 'form', explode: true, value: array, want: 'color=blue&color=black&color=brown' },
    { style: 'form', explode: false, value: array, want: 'color=blue,black,brown' },
    { style: 'form', explode: true, value: object, want: 'R=100&G=200&B=150' },
    { style: 'form', explode: false, value: object, want: 'color=R,100,G,200,B,150' },
    { style: 'spaceDelimited', explode: false, value: array, want: 'color=blue black brown' },
    { style: 'pipeDelimited', explode: false, value: array, want: 'color=blue|black|brown' },
    { style: 'deepObject', explode: true, value: object, want: 'color[R]=100&color[G]=200&color[B]=150' },
  ])('query, $style, explode $explode: $want', ({ style, explode, value, want }) => {
    expect(
      serializePairs(parameter('query', style, explode), value)
        .map(([name, text]) => `${name}=${text}`)
        .join('&'),
    ).toBe(want);
  });

  it('writes a header array and object as simple', () => {
    expect(serializeHeader(parameter('header', 'simple', false), array)).toBe('blue,black,brown');
    expect(serializeHeader(parameter('header', 'simple', true), object)).toBe('R=100,G=200,B=150');
  });

  it('writes a parameter described by content as its media type', () => {
    expect(serializePairs({ name: 'filter', in: 'query', required: false, schema: {}, mediaType: 'application/json' }, { a: 1 })).toEqual([
      ['filter', '{"a":1}'],
    ]);
  });
});

describe('rules', () => {
  it("are this project's conventions, turned on by its own specs", () => {
    expect(rulesOf(source.spec).size).toBe(0);
    const dir = mkdtempSync(join(tmpdir(), 'rules-'));
    try {
      writeFileSync(join(dir, 'ok.yaml'), 'rules: [closed-query]\n');
      writeFileSync(join(dir, 'bad.yaml'), 'rules: [closed-querry]\n');
      expect([...rulesOf(source.spec, join(dir, 'ok.yaml'))]).toEqual(['closed-query']);
      expect(() => rulesOf(source.spec, join(dir, 'bad.yaml'))).toThrow(/names unknown rules: closed-querry \(known: closed-query, /);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('npm run contract --spec, in-process', () => {
  const run = async (args: string[], io = bufferedIo()) => {
    const code = await runContract(args, io, false);
    return { code, stdout: io.stdout(), stderr: io.stderr() };
  };

  it('exits 2 on a spec it cannot read or a scheme the spec does not have, with a message and no stack', async () => {
    const swagger = await run(['--spec', SWAGGER, '--base-url', 'http://127.0.0.1:9']);
    expect(swagger).toMatchObject({ code: 2, stderr: expect.stringContaining('Swagger 2.0') });
    const scheme = await run(['--spec', PETS, '--base-url', 'http://127.0.0.1:9', '--credential', 'nope=x']);
    expect(scheme).toMatchObject({ code: 2, stderr: 'contract: the spec has no security scheme "nope" (it has: basicAuth, keyInQuery)\n' });
    expect(swagger.stderr + scheme.stderr).not.toMatch(/\n\s+at /);
  });

  it('exits 3, not 1, when the tool itself fails, with a message and no stack', async () => {
    // The report cannot be written: the suite failed, whatever the API did.
    const io = bufferedIo();
    io.out = () => {
      throw new Error('the report could not be written');
    };
    const result = await run(['--spec', PETS, '--base-url', 'http://127.0.0.1:9'], io);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('contract: the suite itself failed (exit 3), not the API: the report could not be written');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('runs a foreign spec end to end over HTTP: exit 0, --json on stdout and --junit in a file', async () => {
    // The in-process implementation behind a real listener, since the command sends with the global fetch.
    const handle = fakePets();
    const server = createServer(async (request, response) => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));
      const body = chunks.length > 0 ? Buffer.concat(chunks).toString() : undefined;
      const answer = await handle(`http://pets.test${request.url}`, { method: request.method ?? 'GET', headers, ...(body !== undefined && { body }) });
      response.writeHead(answer.status, Object.fromEntries(answer.headers));
      response.end(await answer.text());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const dir = mkdtempSync(join(tmpdir(), 'junit-'));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const junit = join(dir, 'report.xml');
      const args = ['--spec', PETS, '--base-url', url, '--credential', 'basicAuth=user:pass', '--credential', 'keyInQuery=k123'];
      const result = await run([...args, '--allow-writes', '--json', '--junit', junit]);
      expect(result.code, result.stdout).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ spec: { title: 'Foreign pets', openapi: '3.0.3', rules: [] }, summary: { failed: 0 } });
      expect(existsSync(junit)).toBe(true);
      expect(readFileSync(junit, 'utf8')).toMatch(/<testsuite name="addPet \(POST \/pets\)" tests="\d+" failures="0"/);
      expect(result.stdout + readFileSync(junit, 'utf8')).not.toContain('k123');
    } finally {
      server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('writes a JUnit report with --junit', async () => {
    const report = await runPets(['ignores-auth']);
    const xml = formatJunit(report);
    expect(xml).toMatch(/^<\?xml version="1\.0" encoding="UTF-8"\?>\n<testsuites name="contract suite: Foreign pets 1" tests="\d+" failures="\d+" skipped="0"/);
    expect(xml).toContain('<testsuite name="GET /pets"');
    expect(xml).toMatch(
      /<testcase classname="GET \/pets" name="negative no Authorization header" time="[\d.]+">\n {6}<failure message="expected 401, got 200: the invalid request was accepted" type="status">/,
    );
    expect(xml).not.toContain('k123');
  });
});
