/**
 * The stateful mock on a spec that is not this project's (`fixtures/pets.yaml`: integer ids, an `allOf` pet, a
 * `oneOf` contact, offset and limit, an API key in a header, a sub-collection of notes with UUIDs, errors of
 * its own shape): Prism on the document, the edge with the stateful mock in this process. Create → list →
 * read → change → delete → 404, each API key in its own world, and the reset.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { portToBindLater } from '../../src/cli/port-to-bind-later.js';
import { waitForHttp } from '../../src/cli/wait-for-http.js';
import { loadSpec } from '../../src/contract/spec.js';
import { createMockEdge } from '../../src/mock/edge.js';
import { prismCommand } from '../../src/mock/prism.js';
import { createStatefulMock } from '../../src/mock/stateful/stateful-mock.js';
import { type LaunchedProcess, launch } from '../../tools/process/launch.js';

const specFile = fileURLToPath(new URL('./fixtures/pets.yaml', import.meta.url));
const spec = loadSpec(specFile);
const stateful = createStatefulMock(spec);
let prism: LaunchedProcess | undefined;
let edge: ReturnType<typeof createMockEdge>;

beforeAll(async () => {
  const port = await portToBindLater();
  prism = launch(prismCommand({ host: '127.0.0.1', port, dynamic: false, verbose: false, spec: specFile }));
  const prismUrl = `http://127.0.0.1:${port}`;
  await waitForHttp(prism, { url: `${prismUrl}/pets`, status: 200, headers: { 'X-API-Key': 'readiness' } }, { timeoutMs: 30_000, intervalMs: 100 });
  edge = createMockEdge({ prismUrl, spec, stateful });
}, 40_000);

afterAll(async () => {
  await prism?.stop();
});

/** A request to the edge, in process, as the caller with this API key. */
async function call(key: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown; type: string | null }> {
  const headers: Record<string, string> = { 'X-API-Key': key };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const answer = await edge.request(path, { method, headers, ...(body !== undefined && { body: JSON.stringify(body) }) });
  const text = await answer.text();
  return { status: answer.status, body: text === '' ? undefined : JSON.parse(text), type: answer.headers.get('content-type') };
}

describe('the stateful mock on a third-party CRUD spec', () => {
  it('says which operations it answers from what was made', () => {
    expect(stateful.coverage).toEqual({
      stateful: ['listPets', 'addPet', 'getPet', 'deletePet', 'updatePet', 'listNotes', 'addNote'],
      guarded: [],
      examples: [],
    });
  });

  it('creates, lists, reads, changes and deletes a pet; the deleted pet is a 404 in the spec’s error shape', async () => {
    const made = await call('alice', 'POST', '/pets', { name: 'Biscuit', species: 'dog', contact: { phone: '555-0100' } });
    expect(made.status).toBe(201);
    // Integer ids count on from the examples' (1 and 2); the server's createdAt is now.
    expect(made.body).toMatchObject({ id: 3, name: 'Biscuit', species: 'dog', contact: { phone: '555-0100' } });
    const { createdAt } = made.body as { createdAt: string };
    expect(Date.now() - Date.parse(createdAt)).toBeLessThan(60_000);

    const listed = await call('alice', 'GET', '/pets');
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({ total: 3, data: [{ id: 1 }, { id: 2 }, { id: 3, name: 'Biscuit' }] });
    const paged = await call('alice', 'GET', '/pets?limit=1&offset=2');
    expect(paged.body).toEqual({ total: 3, data: [made.body] });

    expect(await call('alice', 'GET', '/pets/3')).toMatchObject({ status: 200, body: made.body });
    const renamed = await call('alice', 'PATCH', '/pets/3', { name: 'Biscuit II' });
    expect(renamed).toMatchObject({ status: 200, body: { id: 3, name: 'Biscuit II', species: 'dog', createdAt } });
    expect((await call('alice', 'GET', '/pets/3')).body).toMatchObject({ name: 'Biscuit II' });

    expect((await call('alice', 'DELETE', '/pets/3')).status).toBe(204);
    const gone = await call('alice', 'GET', '/pets/3');
    expect(gone.status).toBe(404);
    expect(gone.type).toBe('application/json');
    expect(gone.body).toEqual({ code: expect.any(Number), message: expect.any(String) });
    expect((await call('alice', 'DELETE', '/pets/3')).status).toBe(404);
    expect((await call('alice', 'PATCH', '/pets/3', { name: 'again' })).status).toBe(404);
    expect((await call('alice', 'GET', '/pets')).body).toMatchObject({ total: 2 });
  });

  it('keeps notes under their pet, with UUIDs, and none under a pet that does not exist', async () => {
    const note = await call('carol', 'POST', '/pets/1/notes', { text: 'Vaccinated' });
    expect(note).toMatchObject({ status: 201, body: { text: 'Vaccinated', id: expect.stringMatching(/^[0-9a-f-]{36}$/) } });
    expect((await call('carol', 'GET', '/pets/1/notes')).body).toEqual([note.body]);
    expect((await call('carol', 'GET', '/pets/2/notes')).body).toEqual([]);
    expect((await call('carol', 'GET', '/pets/99/notes')).status).toBe(404);
  });

  it('gives each API key its own world, validates as the edge does, and forgets everything on reset', async () => {
    await call('dave', 'POST', '/pets', { name: 'Only Dave’s', species: 'bird' });
    expect((await call('erin', 'GET', '/pets')).body).toMatchObject({ total: 2 });
    expect((await call('dave', 'GET', '/pets')).body).toMatchObject({ total: 3 });
    // Prism validates first: a bad body is a 422 and stores nothing.
    const refused = await call('dave', 'POST', '/pets', { name: '', species: 'fish' });
    expect(refused.status).toBe(422);
    expect((await call('dave', 'GET', '/pets')).body).toMatchObject({ total: 3 });
    // No key at all: Prism's 401, as before.
    expect((await edge.request('/pets')).status).toBe(401);

    expect((await edge.request('/__mock/reset', { method: 'POST' })).status).toBe(204);
    expect((await call('dave', 'GET', '/pets')).body).toMatchObject({ total: 2 });
  });
});
