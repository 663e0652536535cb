import { describe, expect, it } from 'vitest';
import { readOperations } from '../../src/contract/operations.js';
import { type JsonObject, loadSpec, type OpenApiDocument } from '../../src/contract/spec.js';
import { corsAllowedRequestHeaders, corsExposedResponseHeaders } from '../../src/http/cors-headers.js';
import { compileRequestContract } from '../../src/http/request-contract.js';
import { createApp } from '../../src/server/app.js';
import { openStore } from '../../src/store/open-store.js';

const ORIGIN = 'https://app.example';
const lists = (spec: OpenApiDocument) => {
  const operations = readOperations(spec);
  return { allow: corsAllowedRequestHeaders(spec, operations), expose: corsExposedResponseHeaders(operations) };
};

/** The header parameters the spec's operations declare: each one a browser must be allowed to send. */
const headerParameters = (spec: OpenApiDocument) =>
  readOperations(spec).flatMap((operation) => operation.parameters.filter((parameter) => parameter.in === 'header').map((parameter) => parameter.name));

/** A copy of the spec whose `GET /shared` takes a header parameter and answers 200 with one more header. */
function specWithMoreHeaders(): OpenApiDocument {
  const spec = structuredClone(loadSpec());
  const get = (spec.paths['/shared'] as JsonObject)['get'] as JsonObject;
  get['parameters'] = [...(get['parameters'] as JsonObject[]), { name: 'X-Trace', in: 'header', required: false, schema: { type: 'string' } }];
  const ok = (get['responses'] as JsonObject)['200'] as JsonObject;
  ok['headers'] = { ...(ok['headers'] as JsonObject), Deprecation: { required: false, schema: { type: 'string' } } };
  return spec;
}

describe("the public API's CORS header lists, from the spec", () => {
  it('allow what the contract reads: the bearer scheme, a JSON body and its header parameters; and Prefer, which the server ignores (RFC 7240)', () => {
    const spec = loadSpec();
    // Prefer last, and nothing twice; a header parameter the spec gains comes with no change here.
    expect(lists(spec).allow).toEqual([...new Set(['Authorization', 'Content-Type', ...headerParameters(spec)])].concat('Prefer'));
  });

  it('expose every header an answer declares', () => {
    expect(lists(loadSpec()).expose).toEqual(['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'X-Request-Id', 'WWW-Authenticate', 'Retry-After']);
  });

  it('follow the spec: a new header parameter is allowed and a new response header exposed, with no other change', () => {
    const { allow, expose } = lists(specWithMoreHeaders());
    expect(allow).toEqual([...new Set([...lists(loadSpec()).allow.filter((name) => name !== 'Prefer'), 'X-Trace'])].concat('Prefer'));
    expect(expose).toContain('Deprecation');
  });

  it('are what the server answers a preflight and a request from an allowed origin with', async () => {
    const spec = specWithMoreHeaders();
    const store = await openStore({ databasePath: ':memory:' });
    try {
      const app = createApp({ store, contract: compileRequestContract(spec), logger: { info() {}, error() {} }, corsOrigins: [ORIGIN] });
      const preflight = await app.request('/shared', {
        method: 'OPTIONS',
        headers: { Origin: ORIGIN, 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'authorization,x-trace' },
      });
      expect(preflight.headers.get('access-control-allow-headers')?.split(',')).toEqual(lists(spec).allow);
      expect(lists(spec).allow).toContain('X-Trace');
      const answer = await app.request('/shared', { headers: { Origin: ORIGIN } });
      expect(answer.headers.get('access-control-expose-headers')?.split(',')).toEqual(lists(spec).expose);
    } finally {
      await store.close();
    }
  });
});
