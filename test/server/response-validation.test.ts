import { describe, expect, it } from 'vitest';
import type { ResponseValidationMode } from '../../src/config/env.js';
import { type OperationHandlers, operationHandlers } from '../../src/server/operations.js';
import { createTestApp } from '../helpers/app.js';
import { ITEM_TEXT_FIELD, RENAMED_TEXT_FIELD } from '../helpers/item-fixture.js';

/** The item's free-text field, and the name code that missed a spec change would send it under. */
const [field, renamed] = [ITEM_TEXT_FIELD.name, RENAMED_TEXT_FIELD];

/** A handler that answers POST / with the item's field `field` renamed to `renamed`, as code that missed a spec change would. */
const renamedField: OperationHandlers = {
  ...operationHandlers,
  listOwnItems: async (input, context) => {
    const answer = await operationHandlers.listOwnItems(input, context);
    const items = answer.body.items.map((item) => {
      const { [field]: value, ...rest } = item as Record<string, unknown>;
      return { ...rest, [renamed]: value };
    });
    return { status: 200, body: { items, nextCursor: answer.body.nextCursor } } as unknown as typeof answer;
  },
};

async function renamedWorld(responseValidation: ResponseValidationMode) {
  const t = await createTestApp({ handlers: renamedField, responseValidation });
  const { key, user } = await t.addUser('ann');
  await t.addItems(user.id, 2);
  return { t, key };
}

describe('the server checks its own answers against the spec', () => {
  it('strict (the default outside production): refuses to send a breaking answer, and names the operation and handler', async () => {
    const { t, key } = await renamedWorld('strict');
    const response = await t.send('POST', '/', { key, body: {}, expectServerError: true });
    expect(response.status).toBe(500);
    expect(response.json.detail).toContain('listOwnItems');
    expect(response.text).not.toContain(`"${renamed}"`);
    const logged = t.logs.find((entry) => entry['level'] === 'error');
    expect(logged?.['message']).toContain('the 200 answer of listOwnItems (handler listOwnItems of the handlers given to createApp) breaks the contract');
    expect(logged?.['message']).toContain(`body/items/0/${renamed} is not a known field`);
    expect(logged?.['message']).toContain(`body/items/0/${field} is required`);
  });

  it('log: sends the answer and logs what breaks the contract', async () => {
    const { t, key } = await renamedWorld('log');
    const response = await fetchRaw(t, key);
    expect(response.status).toBe(200);
    expect(t.logs.some((entry) => entry['level'] === 'error' && String(entry['message']).includes('listOwnItems'))).toBe(true);
  });

  it('off (the production default): neither checks nor logs', async () => {
    const { t, key } = await renamedWorld('off');
    expect((await fetchRaw(t, key)).status).toBe(200);
    expect(t.logs.filter((entry) => entry['level'] === 'error')).toEqual([]);
  });

  it('also refuses a problem with a status the operation does not document', async () => {
    const t = await createTestApp({
      handlers: {
        ...operationHandlers,
        listSharedItemsByQuery: async () => {
          const { ApiError } = await import('../../src/http/problems.js');
          throw new ApiError('urn:problem-type:content-too-large', 'GET /shared documents no 413');
        },
      },
    });
    const { key } = await t.addUser('ann');
    const response = await t.send('GET', '/shared', { key, expectServerError: true });
    expect(response.status).toBe(500);
    expect(response.json.detail).toContain('listSharedItemsByQuery');
  });
});

/** Straight through the app, without the test helper's own contract check (which would fail the breaking answer). */
async function fetchRaw(t: Awaited<ReturnType<typeof createTestApp>>, key: string): Promise<Response> {
  return t.app.request('/', { method: 'POST', headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' }, body: '{}' });
}
