import { describe, expect, it } from 'vitest';
import { accountHandlers, LISTED_SESSIONS } from '../../src/account/operations.js';
import { readLimits } from '../../src/contract/limits.js';
import { readOperations } from '../../src/contract/operations.js';
import { accountPresets } from '../../src/contract/presets.js';
import { deref, loadSpec } from '../../src/contract/spec.js';
import { accountChecker, accountSpec, createTestWebApp, PASSWORD } from '../helpers/web-app.js';

const publicSpec = loadSpec();
const operations = readOperations(accountSpec);
const schema = (spec: typeof accountSpec, name: string) => deref(spec, deref(spec, spec.components['schemas'])[name]);

describe('the account API contract (openapi/account.yaml)', () => {
  it('has a handler for each operation and none for an operation it does not have (the typecheck says so first)', () => {
    const ids = operations.map((operation) => operation.operationId);
    expect(new Set(ids).size, 'operationIds are unique').toBe(ids.length);
    expect(Object.keys(accountHandlers).sort(), 'add or remove the handler in src/account/operations.ts').toEqual([...ids].sort());
    const routes = operations.map((operation) => `${operation.method} ${operation.path}`);
    expect(new Set(routes).size, 'one operation per method and path').toBe(routes.length);
  });

  it('puts every operation under the session cookie, except signing up and in', () => {
    for (const operation of operations) {
      expect(operation.security, operation.operationId).toEqual(['signUp', 'signIn'].includes(operation.operationId) ? [] : ['sessionCookie']);
    }
    expect(deref(accountSpec, deref(accountSpec, accountSpec.components['securitySchemes'])['sessionCookie'])).toMatchObject({
      type: 'apiKey',
      in: 'cookie',
      name: '__Host-session',
    });
  });

  it('keeps the public API apart: no path, operation or security scheme in common', () => {
    const publicOperations = readOperations(publicSpec);
    expect(publicOperations.map((operation) => operation.operationId)).not.toEqual(
      expect.arrayContaining(operations.map((operation) => operation.operationId)),
    );
    expect(Object.keys(publicSpec.components['securitySchemes'] as object)).toEqual(['bearerAuth']);
  });

  it('copies the public Problem and Violation schemas exactly; its ProblemType adds to the public one and drops nothing', () => {
    expect(schema(accountSpec, 'Problem')).toEqual(schema(publicSpec, 'Problem'));
    expect(schema(accountSpec, 'Violation')).toEqual(schema(publicSpec, 'Violation'));
    const publicTypes = schema(publicSpec, 'ProblemType')['enum'] as string[];
    const accountTypes = schema(accountSpec, 'ProblemType')['enum'] as string[];
    expect(accountTypes).toEqual(expect.arrayContaining(publicTypes));
  });

  it('answers every error as application/problem+json with the Problem schema; 401 with WWW-Authenticate, 429 with Retry-After', () => {
    for (const operation of operations) {
      for (const response of Object.values(operation.responses).filter((candidate) => Number(candidate.status) >= 400)) {
        expect(Object.keys(response.content), `${operation.operationId} ${response.status}`).toEqual(['application/problem+json']);
        expect(response.content['application/problem+json']?.schema).toEqual({ $ref: '#/components/schemas/Problem' });
        if (response.status === '401') expect(response.headers['WWW-Authenticate']?.required).toBe(true);
        if (response.status === '429') expect(response.headers['Retry-After']?.required).toBe(true);
      }
      expect(operation.responses['429'], `${operation.operationId} documents the per-client rate limit`).toBeDefined();
      if (operation.method !== 'GET') expect(operation.responses['403'], `${operation.operationId} documents the cross-site refusal`).toBeDefined();
    }
  });

  it('sends a key secret only with Cache-Control: no-store, and sets or clears the cookie where a session starts or ends', () => {
    for (const operationId of ['createKey', 'rollKey']) {
      const created = operations.find((operation) => operation.operationId === operationId)?.responses['201'];
      expect(created?.headers['Cache-Control'], operationId).toMatchObject({ required: true, schema: { const: 'no-store' } });
    }
    const setsCookie = operations.filter((operation) => Object.values(operation.responses).some((response) => response.headers['Set-Cookie']));
    // A password change sets the device cookie alone, made anew under the new password (its session goes on).
    expect(setsCookie.map((operation) => operation.operationId).sort()).toEqual(['changePassword', 'endSession', 'signIn', 'signOut', 'signUp']);
  });

  it("takes a sign-up's two Set-Cookie headers folded into one however a client joins them: `, ` (Fetch) or `,` (Prism, some proxies)", async () => {
    const t = await createTestWebApp();
    const response = await t.send('POST', '/api/users', { body: { name: 'fold', password: PASSWORD } });
    const [session, device] = response.headers.getSetCookie();
    expect(device).toBeDefined();
    for (const joined of [`${session}, ${device}`, `${session},${device}`, `${session}`]) {
      const headers = new Headers(response.headers);
      headers.set('set-cookie', joined);
      expect(accountChecker.check('signUp', { status: response.status, headers, body: response.text }), joined).toEqual([]);
    }
    const broken = new Headers(response.headers);
    broken.set('set-cookie', `${session};${device}`);
    expect(accountChecker.check('signUp', { status: response.status, headers: broken, body: response.text })).not.toEqual([]);
    await t.store.close();
  });

  it('states its limits in x-limits, which the server reads', () => {
    // The values are the spec's to choose (the server, the pages, the CLI and the prose read them; an edit of one must
    // leave this green): here, that the server reads every one as written, and that each limit the account API enforces
    // beyond the public API's is stated.
    const limits = readLimits(accountSpec, 'account');
    expect(limits).toEqual(accountSpec['x-limits']);
    expect(Object.keys(limits)).toEqual(expect.arrayContaining(['rateLimit', 'failedAuthentication', 'signIn', 'signUp', 'password', 'session', 'keys']));
  });

  it('offers key expiries from presets with a default and a maximum', () => {
    // Which presets is the spec's to say (the pages, the CLI and the prose read or check them): here, only their shape.
    const { expiresInDays, overlapHours } = accountPresets(accountSpec);
    for (const { values, default: chosen } of [expiresInDays, overlapHours]) {
      expect(values, 'ascending whole numbers').toEqual([...new Set(values)].sort((a, b) => a - b));
      expect(values).toContain(chosen);
    }
    expect(expiresInDays.values[0], 'a key expires a day or more after it is made').toBeGreaterThanOrEqual(1);
    expect(overlapHours.values[0], 'a roll can stop the old key at once').toBe(0);
  });
});

describe('copies of the account spec in its handlers', () => {
  it("lists at most the sessions the spec's SessionList allows (a longer list would break the contract and answer 500)", () => {
    const sessions = deref(accountSpec, deref(accountSpec, schema(accountSpec, 'SessionList')['properties'])['sessions']);
    expect(LISTED_SESSIONS, 'set LISTED_SESSIONS in src/account/operations.ts to SessionList.sessions.maxItems').toBe(sessions['maxItems']);
  });
});
