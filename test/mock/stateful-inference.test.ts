/**
 * The stateful mock's reading of a spec and its memory, unit by unit: resources and plans inferred from this
 * project's account API, a third-party spec and the contract suite's CRUD fixture; the worlds; pages; what a
 * create and an action make of an item; who a request is.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readOperations } from '../../src/contract/operations.js';
import { loadSpec } from '../../src/contract/spec.js';
import { credentialOf, credentialSources, Principals } from '../../src/mock/stateful/credentials.js';
import { changedItem, createdItem } from '../../src/mock/stateful/items.js';
import { ValueMaker } from '../../src/mock/stateful/make-values.js';
import { type Paging, pageOf, withPagingFields } from '../../src/mock/stateful/paging.js';
import { inferResources, type Plan } from '../../src/mock/stateful/resources.js';
import { Worlds } from '../../src/mock/stateful/store.js';
import { accountSpec } from '../helpers/web-app.js';

const petsSpec = loadSpec(fileURLToPath(new URL('./fixtures/pets.yaml', import.meta.url)));
const crudSpec = loadSpec(fileURLToPath(new URL('../contract-suite/fixtures/crud/openapi.yaml', import.meta.url)));

const inferred = (spec: typeof accountSpec) => inferResources(spec, readOperations(spec, { nameless: 'method-path' }));
const kinds = (plans: Map<string, Plan>) => Object.fromEntries([...plans].map(([id, plan]) => [id, plan.kind]));

describe('inferResources', () => {
  it('reads the account API: keys are a resource, sign-in makes a session, revoke is an action and roll is guarded', () => {
    const { resources, plans } = inferred(accountSpec);
    expect(resources.map(({ collectionPath, itemPath, parameter, idField }) => ({ collectionPath, itemPath, parameter, idField }))).toEqual([
      { collectionPath: '/keys', itemPath: '/keys/{keyId}', parameter: 'keyId', idField: 'id' },
    ]);
    expect(kinds(plans)).toEqual({
      signUp: 'makes-credential',
      signIn: 'makes-credential',
      getSession: 'who-am-i',
      signOut: 'ends-credential',
      endSession: 'ends-credential',
      // Since the credential version (issue 33), a password change answers with a new session cookie: it replaces the caller's.
      changePassword: 'ends-credential',
      listKeys: 'list',
      createKey: 'create',
      removeKey: 'delete',
      revokeKey: 'change',
      rollKey: 'guard',
    });
    // The new key sits at `key` of CreatedKey; the list's keys at `keys` of KeyList, paged by cursor.
    expect(plans.get('createKey')).toMatchObject({ at: ['key'] });
    expect(plans.get('listKeys')).toMatchObject({
      at: ['keys'],
      paging: { cursor: { name: 'cursor' }, limit: { name: 'limit' }, next: 'nextCursor', nextNullable: true },
    });
    // Revoke, read from its example against a new key's: the state it sets, and the moment named for it.
    expect(plans.get('revokeKey')).toMatchObject({ how: 'action', effect: { status: 'revoked' }, stamps: ['revokedAt'] });
    // Seeded from the list's examples: three keys, each once.
    expect(resources[0]?.seeds.map((seed) => seed['status'])).toEqual(['active', 'active', 'revoked']);
  });

  it('reads a third-party spec: an allOf pet with integer ids, its notes as a sub-collection with UUIDs, offset paging', () => {
    const { resources, plans } = inferred(petsSpec);
    expect(resources.map(({ collectionPath, itemPath, idField }) => ({ collectionPath, itemPath, idField }))).toEqual([
      { collectionPath: '/pets/{petId}/notes', itemPath: undefined, idField: 'id' },
      { collectionPath: '/pets', itemPath: '/pets/{petId}', idField: 'id' },
    ]);
    expect(kinds(plans)).toEqual({
      listPets: 'list',
      addPet: 'create',
      getPet: 'read',
      updatePet: 'change',
      deletePet: 'delete',
      listNotes: 'list',
      addNote: 'create',
    });
    expect(plans.get('listPets')).toMatchObject({
      at: ['data'],
      paging: { limit: { name: 'limit', default: 10 }, offset: { name: 'offset' }, total: 'total' },
    });
    expect(plans.get('updatePet')).toMatchObject({ how: 'merge' });
    // A sub-collection starts empty: its examples belong to no pet in particular.
    expect(resources[0]?.seeds).toEqual([]);
    expect(resources[1]?.seeds.map((seed) => seed['id'])).toEqual([1, 2]);
  });

  it('reads the contract suite’s CRUD fixture: a PUT replaces', () => {
    expect(kinds(inferred(crudSpec).plans)).toEqual({
      createThing: 'create',
      listThings: 'list',
      getThing: 'read',
      renameThing: 'change',
      deleteThing: 'delete',
    });
    expect(inferred(crudSpec).plans.get('renameThing')).toMatchObject({ how: 'replace' });
  });
});

describe('items', () => {
  const maker = new ValueMaker(accountSpec);
  const [keys] = inferred(accountSpec).resources;
  if (!keys) throw new Error('no keys resource');

  it('makes a key from the request, the example and the schema: a new id of its pattern, the name sent, created now', () => {
    const item = createdItem({ spec: accountSpec, maker }, keys, { name: 'probe-key-xyz', expiresInDays: 30 }, ['key_9z8y7x6w5v4u3t2s']);
    expect(item).toMatchObject({ name: 'probe-key-xyz', status: 'active', revokedAt: null, hint: 'tka_…Q7xe' });
    expect(item['id']).toMatch(/^key_[0-9a-z]{16}$/);
    expect(Date.now() - Date.parse(String(item['createdAt']))).toBeLessThan(60_000);
    // The example key expires 30 days after it was made; so does the new one, counted from now.
    expect(Date.parse(String(item['expiresAt'])) - Date.parse(String(item['createdAt']))).toBe(30 * 24 * 3600 * 1000);
    // A request field the item does not have is not stored; a value the item may not hold is not either.
    expect(item).not.toHaveProperty('expiresInDays');
    expect(createdItem({ spec: accountSpec, maker }, keys, { name: '' }, [])['name']).toBe('CI pipeline');
  });

  it('revokes: the effect and the stamp, nothing else', () => {
    const item = createdItem({ spec: accountSpec, maker }, keys, { name: 'k' }, []);
    const revoked = changedItem({ spec: accountSpec, maker }, keys, item, {
      how: 'action',
      effect: { status: 'revoked' },
      stamps: ['revokedAt'],
      body: undefined,
      settable: [],
    });
    expect(revoked).toEqual({ ...item, status: 'revoked', revokedAt: expect.any(String) });
  });

  it('counts integer ids on from the highest taken', () => {
    expect(new ValueMaker(petsSpec).newId({ type: 'integer' }, ['1', '7', '3'])).toBe(8);
    expect(new ValueMaker(petsSpec).newId({ type: 'integer', minimum: 100 }, [])).toBe(100);
  });
});

describe('pages', () => {
  const items = [1, 2, 3, 4, 5];
  it('walks a cursor to the end, and an offset', () => {
    const paging = { limit: { name: 'limit' }, cursor: { name: 'cursor' }, next: 'nextCursor', nextNullable: true };
    // A page, never a refusal (a cursor of another list: `stateful-cursors.test.ts`).
    const page = (query: string, over: Paging = paging) => {
      const answer = pageOf(items, over, new URLSearchParams(query));
      if ('refused' in answer) throw new Error(`refused: ${answer.refused.detail}`);
      return answer;
    };
    const first = page('limit=2');
    expect(first.page).toEqual([1, 2]);
    const second = page(`limit=2&cursor=${first.next}`);
    expect(second.page).toEqual([3, 4]);
    const last = page(`limit=2&cursor=${second.next}`);
    expect(last).toMatchObject({ page: [5], next: null });
    expect(withPagingFields({ keys: [], nextCursor: 'example' }, paging, null, 5)).toEqual({ keys: [], nextCursor: null });
    expect(withPagingFields({ keys: [], nextCursor: 'example' }, { ...paging, nextNullable: false }, null, 5)).toEqual({ keys: [] });
    expect(page('offset=3', { limit: { name: 'limit', default: 10 }, offset: { name: 'offset' } }).page).toEqual([4, 5]);
  });
});

describe('callers and their worlds', () => {
  it('reads the credential of each scheme, and keeps one world per principal until reset', () => {
    const sources = credentialSources(accountSpec);
    expect(credentialOf(sources, new Headers({ cookie: 'a=b; session=tok' }), new URLSearchParams())).toBe('cookie:tok');
    expect(credentialOf(credentialSources(petsSpec), new Headers({ 'x-api-key': 'k1' }), new URLSearchParams())).toBe('header:k1');
    const principals = new Principals();
    principals.made('cookie:one', 'user:grace');
    principals.made('cookie:two', 'user:grace');
    expect(principals.of('cookie:two')).toBe('user:grace');
    expect(principals.of('cookie:made-up')).toBe('cookie:made-up');
    principals.end('cookie:made-up');
    expect(principals.ended('cookie:made-up')).toBe(false);
    principals.end('cookie:one');
    expect(principals.ended('cookie:one')).toBe(true);

    const worlds = new Worlds();
    const [keys] = inferred(accountSpec).resources;
    if (!keys) throw new Error('no keys resource');
    worlds.of('user:grace').collection(keys, '/keys').clear();
    expect(worlds.of('user:grace').collection(keys, '/keys').size).toBe(0);
    expect(worlds.of('user:hopper').collection(keys, '/keys').size).toBe(3);
    worlds.reset();
    expect(worlds.of('user:grace').collection(keys, '/keys').size).toBe(3);
  });
});
