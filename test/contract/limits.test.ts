import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { checkLimits, LIMITS_SCHEMAS, limitsSchema, readLimits } from '../../src/contract/limits.js';
import { readContracts } from '../../src/contract/project.js';
import { isObject, type Json, type JsonObject, loadSpec, type OpenApiDocument } from '../../src/contract/spec.js';
import { compileRequestContract } from '../../src/http/request-contract.js';
import { editSpec } from '../helpers/spec-edits.js';

const FIXTURE = fileURLToPath(import.meta.url);
const contracts = Object.fromEntries(readContracts().map((contract) => [contract.name, contract]));
const main = contracts['main']!;
const account = contracts['account']!;
const specs = { main: loadSpec(main.spec), account: loadSpec(account.spec) };
const scratch = mkdtempSync(join(tmpdir(), 'limits-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * A contract's spec with its `x-limits` changed in memory, as a spec edited by hand would parse: each
 * field (a path under `x-limits`, `rateLimit/requests`) set to its value, or removed where it is undefined.
 */
function withLimits(name: 'main' | 'account', changes: Record<string, Json | undefined>): OpenApiDocument {
  const copy = structuredClone(specs[name]);
  for (const [path, value] of Object.entries(changes)) {
    const keys = path.split('/');
    const last = keys.pop()!;
    let group = copy['x-limits'] as JsonObject;
    for (const key of keys) group = group[key] as JsonObject;
    if (value === undefined) delete group[last];
    else group[last] = value;
  }
  return copy;
}

const SCHEMA = '(the schema of x-limits is in src/contract/limits.ts)';

describe('readLimits, when a contract loads', () => {
  it("reads each contract's x-limits as its variant of the schema allows", () => {
    expect(readLimits(specs.main, 'main')).toEqual(specs.main['x-limits']);
    expect(readLimits(specs.account, 'account')).toEqual(specs.account['x-limits']);
    // Without a contract's name, the general schema: the account's own groups are read as written too (their values are the spec's to choose).
    expect(readLimits(specs.account).signIn).toEqual((specs.account['x-limits'] as Record<string, unknown>)['signIn']);
  });

  it.each([
    {
      given: 'a number written as text',
      change: { 'rateLimit/requests': '600' },
      want: 'x-limits.rateLimit.requests must be an integer >= 1, found "600"',
    },
    {
      given: 'a fraction',
      change: { headersTimeoutSeconds: 2.5 },
      want: 'x-limits.headersTimeoutSeconds must be an integer >= 1, found 2.5',
    },
    { given: 'a negative number', change: { maxBodyBytes: -1 }, want: 'x-limits.maxBodyBytes must be an integer >= 1, found -1' },
    {
      given: 'zero',
      change: { 'failedAuthentication/perAddress': 0 },
      want: 'x-limits.failedAuthentication.perAddress must be an integer >= 1, found 0',
    },
    { given: 'a missing field', change: { 'rateLimit/windowSeconds': undefined }, want: 'x-limits.rateLimit.windowSeconds is required' },
    { given: 'a missing group', change: { failedAuthentication: undefined }, want: 'x-limits.failedAuthentication is required' },
    { given: 'an unknown field', change: { 'rateLimit/burst': 10 }, want: 'x-limits.rateLimit.burst is not a known field' },
    { given: 'a misspelt limit', change: { maxBodySize: 8192 }, want: 'x-limits.maxBodySize is not a known field' },
    { given: 'a group written as a number', change: { rateLimit: 600 }, want: 'x-limits.rateLimit must be an object, found 600' },
    {
      given: 'a headers timeout longer than the request timeout',
      change: { headersTimeoutSeconds: 60 },
      want: 'x-limits.headersTimeoutSeconds (60) must be at most x-limits.requestTimeoutSeconds (30)',
    },
  ])('refuses $given, naming the field', ({ change, want }) => {
    expect(() => readLimits(withLimits('main', change), 'main')).toThrow(`the spec's ${want} ${SCHEMA}`);
  });

  it('names every wrong field at once', () => {
    const spec = withLimits('account', { 'keys/activePerUser': -20, 'session/idleSeconds': undefined });
    expect(() => readLimits(spec, 'account')).toThrow(
      `the spec's x-limits.session.idleSeconds is required; x-limits.keys.activePerUser must be an integer >= 1, found -20 ${SCHEMA}`,
    );
  });

  it("holds each contract to its own groups, naming the spec's file when it was loaded from one: the account API's are the account API's alone, and all five", () => {
    expect(() => readLimits(specs.account, 'main')).toThrow(
      'openapi/account.yaml: x-limits.signIn is not a known field; x-limits.signUp is not a known field; x-limits.password is not a known field; x-limits.session is not a known field; x-limits.keys is not a known field',
    );
    expect(() => readLimits(specs.main, 'account')).toThrow(
      'openapi/openapi.yaml: x-limits.signIn is required; x-limits.signUp is required; x-limits.password is required; x-limits.session is required; x-limits.keys is required',
    );
    // Without a contract's name, either variant; but a group alone is a mistake in both.
    expect(readLimits(specs.main).signIn).toBeUndefined();
    expect(() => readLimits(withLimits('account', { keys: undefined }))).toThrow(
      "the spec's x-limits.keys is required: the account API's groups signIn, signUp, password, session and keys come together (the schema",
    );
  });

  it('says so when a spec has no x-limits, and says "the spec" for one made in memory', () => {
    const spec = structuredClone(specs.main);
    delete spec['x-limits'];
    expect(() => readLimits(spec)).toThrow("the spec's x-limits is missing: the server reads its limits from it (its schema is in src/contract/limits.ts)");
  });

  it('is what compiling a contract reads, so a server does not start on a wrong x-limits', () => {
    const contract = compileRequestContract(specs.main);
    // What the spec says, read as the spec has it: a limit raised in the spec is followed here, not pinned.
    const written = specs.main['x-limits'] as Record<string, unknown>;
    expect(contract.limits).toEqual({
      maxBodyBytes: written['maxBodyBytes'],
      rateLimit: written['rateLimit'],
      failedAuthentication: written['failedAuthentication'],
    });
    expect(contract.connectionLimits).toEqual({
      headersTimeoutSeconds: written['headersTimeoutSeconds'],
      requestTimeoutSeconds: written['requestTimeoutSeconds'],
    });
    expect(() => compileRequestContract(withLimits('main', { 'rateLimit/requests': -600 }))).toThrow(
      'x-limits.rateLimit.requests must be an integer >= 1, found -600',
    );
  });

  it("holds a named contract to its own variant at startup: the public API takes none of the account API's groups", () => {
    const withAccountGroups = structuredClone(specs.main);
    for (const group of ['signIn', 'signUp', 'password', 'session', 'keys'])
      (withAccountGroups['x-limits'] as JsonObject)[group] = (specs.account['x-limits'] as JsonObject)[group] as Json;
    expect(() => compileRequestContract(withAccountGroups)).not.toThrow();
    expect(() => compileRequestContract(withAccountGroups, 'main')).toThrow(/x-limits\.\w+ is not a known field/);
    expect(() => compileRequestContract(specs.account, 'account')).not.toThrow();
  });
});

describe('the schema of x-limits', () => {
  /** Every property schema under `schema`, by its dotted field name. */
  function fields(schema: Json, path = 'x-limits'): Array<[string, Record<string, Json>]> {
    if (!isObject(schema) || !isObject(schema['properties'])) return [];
    return Object.entries(schema['properties']).flatMap(([name, child]) =>
      isObject(child) ? [[`${path}.${name}`, child] as [string, Record<string, Json>], ...fields(child, `${path}.${name}`)] : [],
    );
  }

  it.each([
    ['either contract', limitsSchema],
    ['the public API', LIMITS_SCHEMAS.main],
    ['the account API', LIMITS_SCHEMAS.account],
  ])('for %s: closes every group, requires every field of a group, and says what each limit means; every limit is a whole number from 1', (_, schema) => {
    const root = schema as unknown as Record<string, Json>;
    expect(root).toMatchObject({ type: 'object', additionalProperties: false, description: expect.any(String) });
    const all = fields(root);
    expect(all.length).toBeGreaterThanOrEqual(9);
    for (const [name, field] of all) {
      expect(typeof field['description'], `${name} has a description`).toBe('string');
      if (field['type'] === 'object') {
        expect(field['additionalProperties'], `${name} admits no other field`).toBe(false);
        expect(field['required'], `${name} requires each of its fields`).toEqual(Object.keys(field['properties'] as object));
      } else {
        expect(field, name).toMatchObject({ type: 'integer', minimum: 1 });
      }
    }
  });
});

describe('the x-limits check of npm run check:contracts', () => {
  /** A copy of a contract's spec file with the edits applied to its text. */
  function specCopy(name: 'main' | 'account', edits: Array<[RegExp, string]>): string {
    const file = join(scratch, `${name}-${edits.length}-${Math.random().toString(36).slice(2)}.yaml`);
    writeFileSync(file, editSpec(readFileSync(contracts[name]!.spec, 'utf8'), edits, FIXTURE));
    return file;
  }

  it('passes on both contracts', () => {
    expect(checkLimits(main)).toEqual({ ok: true, message: 'x-limits of openapi/openapi.yaml matches its schema' });
    expect(checkLimits(account)).toEqual({ ok: true, message: 'x-limits of openapi/account.yaml matches its schema' });
  });

  it.each([
    {
      given: 'a wrong type',
      name: 'main',
      edits: [[/^( {4}requests:) \d+$/m, '$1 many']],
      want: 'x-limits.rateLimit.requests must be an integer >= 1, found "many"',
    },
    {
      given: 'a negative number',
      name: 'main',
      edits: [[/^( {2}maxBodyBytes:) \d+$/m, '$1 -8192']],
      want: 'x-limits.maxBodyBytes must be an integer >= 1, found -8192',
    },
    { given: 'a missing field', name: 'account', edits: [[/^ {4}idleSeconds: \d+\n/m, '']], want: 'x-limits.session.idleSeconds is required' },
    {
      given: 'an unknown field',
      name: 'account',
      edits: [[/^( {4}activePerUser: 20\n)/m, '$1    perDay: 5\n']],
      want: 'x-limits.keys.perDay is not a known field',
    },
    {
      given: "the account API's groups in the public spec",
      name: 'main',
      edits: [[/^(x-limits:\n)/m, '$1  keys:\n    activePerUser: 20\n']],
      want: 'x-limits.keys is not a known field',
    },
  ] as const)('fails on $given, naming the field, the file and the fix', ({ name, edits, want }) => {
    const spec = specCopy(name, edits as unknown as Array<[RegExp, string]>);
    const result = checkLimits({ name, spec });
    expect(result.ok).toBe(false);
    expect(result.message).toBe(`${spec}: ${want} ${SCHEMA}. Fix the field in the spec, or the schema if the limit is new.`);
  });
});
