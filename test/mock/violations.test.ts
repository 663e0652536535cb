import { describe, expect, it } from 'vitest';
import { readPrismViolations, toContractViolations, type PrismViolation } from '../../src/mock/violations.js';

const error = (location: string[], code: string, message: string): PrismViolation => ({ location, code, message, severity: 'Error' });

describe("Prism's sl-violations as the contract's violations", () => {
  it.each([
    {
      given: error(['request', 'body'], 'additionalProperties', "Request body must NOT have additional properties; found 'srot'"),
      want: { in: 'body', pointer: '/srot', detail: 'is not a known field' },
    },
    {
      given: error(['request', 'body', 'limit'], 'maximum', 'Request body property limit must be <= 100'),
      want: { in: 'body', pointer: '/limit', detail: 'must be <= 100' },
    },
    {
      given: error(['request', 'body'], 'required', "Request body must have required property 'password'"),
      want: { in: 'body', pointer: '/password', detail: 'is required' },
    },
    {
      given: error(['request', 'query', 'sort'], 'enum', 'Request query parameter sort must be equal to one of the allowed values: asc, desc'),
      want: { in: 'query', pointer: '/sort', detail: 'must be one of: asc, desc' },
    },
    {
      given: error(['request', 'path', 'keyid'], 'pattern', 'Request path parameter keyid must match pattern "^key_[0-9a-z]{16}$"'),
      want: { in: 'path', pointer: '/keyId', detail: 'must match pattern "^key_[0-9a-z]{16}$"' },
    },
    {
      given: error(['request', 'header', 'X-Example'], 'type', 'Request header parameter X-Example must be integer'),
      want: { in: 'header', pointer: '/x-example', detail: 'must be integer' },
    },
    {
      given: error(['request', 'body', 'a~1b'], 'additionalProperties', "Request body property a~1b must NOT have additional properties; found 'x/y'"),
      want: { in: 'body', pointer: '/a~1b/x~1y', detail: 'is not a known field' },
    },
  ])('$want.in $want.pointer: $want.detail', ({ given, want }) => {
    expect(toContractViolations([given], (part, reported) => (part === 'path' && reported === 'keyid' ? 'keyId' : reported))).toEqual([want]);
  });

  it('leaves out warnings, what has no place in the request, and repeats', () => {
    const unknown = error(['request', 'body'], 'additionalProperties', "Request body must NOT have additional properties; found 'x'");
    expect(
      toContractViolations([
        { ...unknown, severity: 'Warning' },
        { location: ['request'], code: 415, message: 'Supported content types: application/json', severity: 'Error' },
        unknown,
        unknown,
      ]),
    ).toEqual([{ in: 'body', pointer: '/x', detail: 'is not a known field' }]);
  });

  it.each([null, '', 'not json', '{"location":[]}', '[{"location":"request"}]'])('reads nothing from the header %j', (header) => {
    expect(readPrismViolations(header)).toEqual([]);
  });
});
