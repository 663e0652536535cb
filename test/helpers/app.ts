import { generateApiKey } from '../../src/keys/api-key.js';
import { type AppOptions, createApp } from '../../src/server/app.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store, User } from '../../src/store/store.js';
import { expectHonoursContract, matchRoute, operationIdFor, requestContract } from './contract.js';

export const START = Date.parse('2026-01-01T00:00:00.000Z');

export interface TestResponse {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

/**
 * An app on an in-memory database with a fake clock and a log recorder. Every
 * response that `send` returns has already been checked against the spec.
 */
export async function createTestApp(options: Partial<Omit<AppOptions, 'store' | 'contract' | 'logger' | 'now'>> = {}) {
  const store: Store = await openStore({ databasePath: ':memory:' });
  const logs: Array<Record<string, unknown>> = [];
  const clock = { now: START };
  const app = createApp({
    store,
    contract: requestContract,
    logger: { info: (fields, message) => logs.push({ ...fields, message }), error: (fields, message) => logs.push({ ...fields, message, level: 'error' }) },
    now: () => clock.now,
    ...options,
  });
  const basePath = options.basePath ?? '';

  async function addUser(name: string): Promise<{ user: User; key: string; keyId: string }> {
    const at = new Date(clock.now).toISOString();
    const user = (await store.findUserByName(name)) ?? (await store.createUser(name, at));
    const { key, digest, hint } = generateApiKey();
    const summary = await store.createKey(user.id, digest, hint, at);
    return { user, key, keyId: summary.id };
  }

  /** Items created a second apart, so the order is known; `sameTime` gives them one timestamp to test the tie-break. */
  async function addItems(ownerId: string, count: number, { sameTime = false } = {}) {
    const items = [];
    for (let index = 0; index < count; index++) {
      items.push(await store.createItem(ownerId, `Item ${index + 1}`, new Date(START - (sameTime ? 0 : (count - index) * 1000)).toISOString()));
    }
    return items;
  }

  async function send(
    method: string,
    path: string,
    init: { key?: string; headers?: Record<string, string>; body?: unknown; rawBody?: BodyInit; expectServerError?: boolean } = {},
  ): Promise<TestResponse> {
    const headers = new Headers(init.headers);
    if (init.key !== undefined) headers.set('Authorization', `Bearer ${init.key}`);
    let body: BodyInit | undefined = init.rawBody;
    if (init.body !== undefined) {
      body = JSON.stringify(init.body);
      if (!headers.has('content-type')) headers.set('Content-Type', 'application/json');
    }
    const response = await app.request(basePath + path, { method, headers, ...(body !== undefined && { body, duplex: 'half' }) } as RequestInit);
    const text = await response.text();
    const requested = path.split('?')[0] || '/';
    const specPath = matchRoute(requested)?.template ?? requested;
    expectHonoursContract(
      operationIdFor(method, specPath),
      { status: response.status, headers: response.headers, body: method === 'HEAD' ? '' : text },
      init.expectServerError,
    );
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: response.status, headers: response.headers, text, json };
  }

  return { app, store, logs, clock, addUser, addItems, send };
}
