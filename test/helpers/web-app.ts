import { expect } from 'vitest';
import { createWebApp, type WebAppOptions } from '../../src/account/app.js';
import { type AccountLimits, readLimits } from '../../src/contract/limits.js';
import { readContractPaths } from '../../src/contract/project.js';
import { ResponseChecker } from '../../src/contract/response-checker.js';
import { loadSpec } from '../../src/contract/spec.js';
import { compileRequestContract } from '../../src/http/request-contract.js';
import { buildPages, type PageAssets } from '../../src/pages/assets.js';
import { createApp } from '../../src/server/app.js';
import { openStore } from '../../src/store/open-store.js';
import { requestContract } from './contract.js';

export const START = Date.parse('2026-01-01T00:00:00.000Z');
export const accountSpec = loadSpec(readContractPaths(undefined, 'account').spec);
export const accountContract = compileRequestContract(accountSpec);
export const accountChecker = new ResponseChecker(accountSpec);
export const PASSWORD = 'correct horse battery staple';

let pages: Promise<PageAssets> | undefined;

export interface WebResponse {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

/** The operation of the account spec a request is for (`/api` stripped), or undefined. */
function accountOperationFor(method: string, path: string): string | undefined {
  const specPath = path.replace(/^\/api/, '').split('?')[0] ?? '';
  const upper = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
  const template = (pattern: string) => new RegExp(`^${pattern.replace(/\{[^}]+\}/g, '[^/]+')}$`);
  return accountChecker.operations.find((operation) => operation.method === upper && template(operation.path).test(specPath))?.operationId;
}

/**
 * The web application on an in-memory database with a fake clock and a log
 * recorder, and the public API on the same store, as `npm start` runs them.
 * Every account API answer `send` returns has been checked against the account spec.
 */
export async function createTestWebApp({
  databasePath = ':memory:',
  databaseUrl,
  accountLimits: limitOverrides = {},
  ...options
}: Partial<Omit<WebAppOptions, 'store' | 'contract' | 'logger' | 'now' | 'pages' | 'accountLimits'>> & {
  databasePath?: string;
  /** A PostgreSQL database (`freshDatabase()`) instead of SQLite; close the store (`t.store.close()`) when done. */
  databaseUrl?: string;
  /** Groups of the account spec's own limits to use instead of its `x-limits`' (each group whole). */
  accountLimits?: Partial<AccountLimits>;
} = {}) {
  const store = await openStore({ databasePath, databaseUrl });
  const logs: Array<Record<string, unknown>> = [];
  const logger = {
    info: (fields: object, message?: string) => logs.push({ ...fields, message }),
    error: (fields: object, message?: string) => logs.push({ ...fields, message, level: 'error' }),
  };
  const clock = { now: START };
  pages ??= buildPages({ publicApiUrl: 'http://127.0.0.1:3000' });
  const app = createWebApp({
    store,
    contract: accountContract,
    accountLimits: { ...readLimits(accountSpec, 'account'), ...limitOverrides },
    logger,
    pages: await pages,
    now: () => clock.now,
    ...options,
  });
  const api = createApp({ store, contract: requestContract, logger, now: () => clock.now });
  const origin = options.origin ?? 'http://127.0.0.1:3001';

  /**
   * Sends a request as the pages would: same-origin headers on unsafe methods
   * unless `headers` say otherwise, the cookie when given.
   */
  async function send(
    method: string,
    path: string,
    init: { body?: unknown; rawBody?: string; cookie?: string; headers?: Record<string, string> } = {},
  ): Promise<WebResponse> {
    const headers = new Headers({
      Host: new URL(origin).host,
      ...(method !== 'GET' && method !== 'HEAD' && { Origin: origin, 'Sec-Fetch-Site': 'same-origin' }),
    });
    for (const [name, value] of Object.entries(init.headers ?? {})) {
      if (value === '') headers.delete(name);
      else headers.set(name, value);
    }
    if (init.cookie !== undefined) headers.set('Cookie', init.cookie);
    let body: string | undefined = init.rawBody;
    if (init.body !== undefined) {
      body = JSON.stringify(init.body);
      if (!headers.has('content-type')) headers.set('Content-Type', 'application/json');
    }
    const response = await app.request(`${origin}${path}`, { method, headers, ...(body !== undefined && { body }) });
    const text = await response.text();
    const operationId = accountOperationFor(method, path);
    if (operationId)
      expect(
        accountChecker.check(operationId, { status: response.status, headers: response.headers, body: text }),
        `${operationId} answered ${response.status} ${text.slice(0, 300)}`,
      ).toEqual([]);
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: response.status, headers: response.headers, text, json };
  }

  /** Signs a new user up and returns the `name=value` of their session cookie. */
  async function signUp(name: string, password = PASSWORD): Promise<{ cookie: string; userId: string }> {
    const response = await send('POST', '/api/users', { body: { name, password } });
    expect(response.status, response.text).toBe(201);
    return { cookie: cookieOf(response), userId: response.json.user.id };
  }

  /** A request to the public API with a key, as a program would send it. */
  async function callPublicApi(key: string, method = 'POST', path = '/'): Promise<Response> {
    return api.request(path, {
      method,
      headers: { Authorization: `Bearer ${key}`, ...(method === 'POST' && { 'Content-Type': 'application/json' }) },
      ...(method === 'POST' && { body: '{}' }),
    });
  }

  return { app, store, logs, clock, send, signUp, callPublicApi };
}

/** The `name=value` part of a response's Set-Cookie. */
export function cookieOf(response: { headers: Headers }): string {
  const header = response.headers.get('set-cookie') ?? '';
  return header.split(';')[0] ?? '';
}

/** The `name=value` of the device cookie a sign-up or sign-in set (`device=…`, `__Host-device=…`), or '' when none. */
export function deviceCookieOf(response: { headers: Headers }): string {
  const cookie = response.headers.getSetCookie().find((header) => /^(__Host-)?device=/.test(header)) ?? '';
  return cookie.split(';')[0] ?? '';
}
