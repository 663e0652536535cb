/**
 * Every alternative of an operation's `security` gets its valid and refused cases (issue 31, point 4): with
 * a bearer token OR a query key OR a cookie key, a server that lets any query key in was missed while only
 * the first alternative was tried. Each case presents its alternative alone.
 */
import { describe, expect, it } from 'vitest';
import { readOperations } from '../../src/contract/operations.js';
import type { OpenApiDocument } from '../../src/contract/spec.js';
import { deriveCases } from '../../src/contract-suite/cases.js';
import { Credentials } from '../../src/contract-suite/credentials.js';
import { buildRequest } from '../../src/contract-suite/http.js';

const spec = {
  openapi: '3.1.0',
  info: { title: 'Alternatives', version: '1' },
  security: [{ oauth2: [] }, { queryKey: [] }, { cookieKey: [] }],
  paths: {
    '/reports': {
      get: {
        operationId: 'listReports',
        responses: { '200': { description: 'ok' }, '401': { description: 'no valid credential' } },
      },
    },
  },
  components: {
    securitySchemes: {
      oauth2: { type: 'oauth2', flows: { clientCredentials: { tokenUrl: '/token', scopes: {} } } },
      queryKey: { type: 'apiKey', in: 'query', name: 'api_key' },
      cookieKey: { type: 'apiKey', in: 'cookie', name: 'key' },
    },
  },
} as unknown as OpenApiDocument;

const credentials = new Credentials(spec, { byScheme: { oauth2: 'tok', queryKey: 'qk', cookieKey: 'ck' } });
const { cases } = deriveCases(spec, readOperations(spec), { credentials });
const transport = { baseUrl: 'http://api.test', credentials, fetch: globalThis.fetch, timeoutMs: 1000 };
const sent = (id: string) => {
  const entry = cases.find((candidate) => candidate.id === id);
  if (!entry) throw new Error(`no case ${id}: ${cases.map((candidate) => candidate.id).join(', ')}`);
  return buildRequest(transport, entry, entry.input);
};

describe('every security alternative', () => {
  it('is tried alone with its valid credential', () => {
    const query = sent('listReports positive minimal-request security queryKey');
    expect(query.url).toBe('http://api.test/reports?api_key=qk');
    expect(query.headers['Authorization']).toBeUndefined();
    const cookie = sent('listReports positive minimal-request security cookieKey');
    expect(cookie.headers['Cookie']).toBe('key=ck');
    expect(cookie.url).toBe('http://api.test/reports');
  });

  it('is refused with an empty or an unknown credential of its own, and nothing of the other alternatives', () => {
    for (const family of ['empty-bearer', 'unknown-key']) {
      const entry = cases.find((candidate) => candidate.id === `listReports negative ${family} queryKey`);
      expect(entry?.expectedStatus).toBe(401);
      const request = sent(`listReports negative ${family} queryKey`);
      expect(request.url).toMatch(/^http:\/\/api\.test\/reports\?api_key=/);
      expect(request.url).not.toContain('api_key=qk');
      expect(request.headers['Authorization']).toBeUndefined();
      expect(request.headers['Cookie']).toBeUndefined();
    }
    expect(sent('listReports negative unknown-key cookieKey').headers['Cookie']).toMatch(/^key=/);
  });

  it('keeps the first alternative as it was: the five refused cases with no key of their own', () => {
    expect(sent('listReports negative no-authorization').url).toBe('http://api.test/reports');
    expect(sent('listReports negative unknown-key').headers['Authorization']).toMatch(/^Bearer /);
  });
});
