/**
 * The phases' building blocks, without a server: what the property phase generates is valid where it
 * must be and invalid where it must be, small domains are walked edges first in a seeded order, and the
 * writes of the account API are ordered so that nothing ends the run's credential before the end.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readOperations } from '../../src/contract/operations.js';
import { loadSpec } from '../../src/contract/spec.js';
import { deriveCases } from '../../src/contract-suite/cases.js';
import { parseContractArgs } from '../../src/contract-suite/cli-options.js';
import { smallDomain, validValue } from '../../src/contract-suite/phases/arbitraries.js';
import { applyMutation, mutationsOf } from '../../src/contract-suite/phases/mutations.js';
import { inWriteOrder } from '../../src/contract-suite/phases/write-order.js';
import { SchemaValues } from '../../src/contract-suite/values/schema-values.js';
import { accountSpec } from '../helpers/web-app.js';

const spec = loadSpec();
const values = new SchemaValues(spec);
const { facts } = deriveCases(spec, readOperations(spec));
const listOwnItems = facts.find((entry) => entry.operation.operationId === 'listOwnItems');
if (!listOwnItems?.body) throw new Error('listOwnItems takes a body');
const bodySchema = listOwnItems.body.schema;

describe('the property phase generates', () => {
  it('only valid bodies from the schema, whatever the seed', () => {
    const arbitrary = validValue(spec, values, bodySchema, 'body');
    if (!arbitrary) throw new Error('no valid body');
    const bodies = fc.sample(arbitrary, { seed: 7, numRuns: 200 });
    expect(bodies.filter((body) => !values.isValid(bodySchema, body))).toEqual([]);
    expect(new Set(bodies.map((body) => JSON.stringify(body))).size).toBeGreaterThan(50);
  });

  it('only invalid requests from its mutations, among them a number sent as text (a value a lenient server coerces)', () => {
    const mutations = mutationsOf(spec, values, listOwnItems);
    if (!mutations) throw new Error('no mutations');
    const drawn = fc.sample(mutations, { seed: 7, numRuns: 300 });
    for (const mutation of drawn) {
      if (mutation.location !== 'body') {
        // A parameter the spec gives the operation (a header, a query parameter): the value breaks that parameter's schema.
        const field = listOwnItems.fields.find((entry) => entry.location === mutation.location && `/${entry.name}` === mutation.pointer);
        expect(field, mutation.title).toBeDefined();
        if (mutation.value === undefined) expect(field?.required, mutation.title).toBe(true);
        else expect(values.isValid(field?.schema ?? {}, mutation.value), mutation.title).toBe(false);
        continue;
      }
      const { input, overrides } = applyMutation(listOwnItems.baseline, mutation);
      if (overrides.body !== undefined) continue; // an empty or malformed body, or one of another JSON type: not an object at all
      expect(values.isValid(bodySchema, input.body ?? {}), mutation.title).toBe(false);
    }
    expect(drawn.some((mutation) => mutation.pointer === '/limit' && typeof mutation.value === 'string' && /^\d+$/.test(mutation.value))).toBe(true);
    expect(drawn.some((mutation) => mutation.raw === '')).toBe(true);
  });

  it('walks a small domain edges first, then the rest in an order its seed repeats', () => {
    // A page size as the spec had it, not as it is: a larger one is no small domain, and the walk is what is tried here.
    const limit = { type: 'integer', minimum: 1, maximum: 100, default: 20 };
    const walked = smallDomain(spec, limit, 23) ?? [];
    expect(walked.slice(0, 5)).toEqual([1, 100, 20, 2, 99]);
    expect([...walked].sort((a, b) => Number(a) - Number(b))).toEqual(Array.from({ length: 100 }, (_, index) => index + 1));
    expect(smallDomain(spec, limit, 23)).toEqual(walked);
    expect(smallDomain(spec, limit, 24)).not.toEqual(walked);
  });
});

describe('the order of writes', () => {
  it('on the account API: credentials made first, then keys, and what may end the credential last, sign-out last of all', () => {
    const account = deriveCases(accountSpec, readOperations(accountSpec));
    const order = inWriteOrder(accountSpec, account.facts).map(({ facts: entry, role }) => `${role} ${entry.operation.operationId}`);
    expect(order[0]).toBe('makes-credential signUp');
    expect(order[1]).toBe('makes-credential signIn');
    expect(order.at(-1)).toBe('ends-credential signOut');
    expect(order.at(-2)).toBe('ends-credential endSession');
    expect(order).toContain('creates createKey');
    expect(order.indexOf('creates createKey')).toBeLessThan(order.indexOf('deletes removeKey'));
    // The two list POSTs of the public API only read (x-read-only): not writes.
    expect(inWriteOrder(spec, facts)).toEqual([]);
  });
});

describe('the options of the phases', () => {
  const base = ['--base-url', 'http://127.0.0.1:1', '--token', 'x'];

  it('default to 20 examples, a random seed and the stateful phase on', () => {
    const options = parseContractArgs(base);
    expect(options).toMatchObject({ examples: 20, stateful: true, refusedCredential: [] });
    expect(options.seed).toBeUndefined();
  });

  it('read a seed, a count, repeated refused credentials and no stateful phase', () => {
    const options = parseContractArgs([
      ...base,
      '--examples',
      '0',
      '--seed',
      '23',
      '--no-stateful',
      '--refused-credential',
      'bearerAuth=tka_a',
      '--refused-credential',
      'bearerAuth=tka_b',
    ]);
    expect(options).toMatchObject({
      examples: 0,
      seed: 23,
      stateful: false,
      refusedCredential: [
        { scheme: 'bearerAuth', value: 'tka_a' },
        { scheme: 'bearerAuth', value: 'tka_b' },
      ],
    });
  });

  it.each([
    { given: ['--examples', '-1'], want: 'must be a whole number from 0 to 10000' },
    { given: ['--seed', 'soon'], want: 'must be a whole number from 0 to 2147483647' },
    { given: ['--refused-credential', 'tka_without_scheme'], want: 'must be <security scheme name>=<value>' },
  ])('refuse $given with a message', ({ given, want }) => {
    let written = '';
    expect(() => parseContractArgs([...base, ...given], (text) => (written += text))).toThrow();
    expect(written).toContain(want);
  });
});
