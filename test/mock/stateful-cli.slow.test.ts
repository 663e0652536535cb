/**
 * `npm run mock -- --stateful --spec <another team's document>` as a process: it starts on a document that is
 * none of this project's contracts (no `x-limits`, no operation to probe), says which operations remember,
 * and keeps a pet from create to 404 over HTTP.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MockProcess, startMock } from '../../tools/process/mock.js';

const specFile = fileURLToPath(new URL('./fixtures/pets.yaml', import.meta.url));
let mock: MockProcess | undefined;

beforeAll(async () => {
  mock = await startMock({ spec: specFile, stateful: true });
}, 90_000);

afterAll(async () => {
  await mock?.stop();
});

describe('npm run mock -- --stateful --spec <foreign document>', () => {
  it('starts, lists its stateful operations, and remembers a pet until it is deleted', async () => {
    if (!mock) throw new Error('no mock');
    const started = mock.stdout();
    expect(started).toContain('Any credential is accepted');
    expect(started).toMatch(/From what was made: listPets, addPet, getPet, deletePet, updatePet, listNotes, addNote$/m);
    expect(started).not.toContain('-d \'{"sort":"asc"}\'');
    const headers = { 'X-API-Key': 'cli', 'Content-Type': 'application/json' };
    const made = await fetch(`${mock.url}/pets`, { method: 'POST', headers, body: JSON.stringify({ name: 'Pip', species: 'bird' }) });
    expect(made.status).toBe(201);
    const { id } = (await made.json()) as { id: number };
    expect(id).toBe(3);
    expect((await fetch(`${mock.url}/pets/${id}`, { headers })).status).toBe(200);
    expect((await fetch(`${mock.url}/pets/${id}`, { method: 'DELETE', headers })).status).toBe(204);
    expect((await fetch(`${mock.url}/pets/${id}`, { headers })).status).toBe(404);
  });
});
