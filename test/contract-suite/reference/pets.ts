/**
 * The pets reference server (`pets.yaml`): each user's pets in memory, behind a bearer token. Correct unless
 * a bug is planted; each bug is one way an implementation goes wrong that a client would notice.
 */
import { error, integerQuery, json, jsonBody, loadReference } from './kit.js';

export const PETS_SPEC = new URL('./pets.yaml', import.meta.url).pathname;
export const PETS_USERS = { alice: 'alice-token', bob: 'bob-token' } as const;

export const PETS_BUGS = {
  'no-auth-accepted': 'a request without a token is served as alice',
  'bola-read': 'another user reads my pet by id (no owner check on GET /pets/{id})',
  'bola-list': "another user's list shows my pets, and mine theirs (listPets shows every pet)",
  'use-after-free': 'a deleted pet is still readable',
  'rename-ignored': 'PATCH answers with the new name but keeps the old one',
  'empty-body-500': 'POST /pets with an empty body answers 500',
  'create-200': 'createPet answers 200, which is not documented (201 is)',
  'note-500': 'addNote answers 500 for any note',
  'limit-37-500': 'listPets?limit=37 answers 500',
  'tag-null-500': 'PATCH with tag: null answers 500',
  'long-note-500': 'a note longer than 200 characters answers 500',
  'oneof-optional-dropped': 'a create drops the optional breed or color of its oneOf details',
  'writeonly-echoed': 'answers carry the writeOnly secret',
} as const;
export type PetsBug = keyof typeof PETS_BUGS;

interface Pet {
  id: number;
  owner: string;
  name: string;
  tag?: string | null;
  secret?: string;
  details: Record<string, unknown>;
  deleted?: boolean;
}

export async function petsServer(bug?: PetsBug): Promise<typeof globalThis.fetch> {
  const { validator } = await loadReference(PETS_SPEC);
  const fields = validator({ $ref: '#/components/schemas/PetFields' });
  const patch = validator({
    type: 'object',
    additionalProperties: false,
    properties: { name: { type: 'string', minLength: 1, maxLength: 40 }, tag: { type: ['string', 'null'], maxLength: 20 } },
  });
  const note = validator({
    type: 'object',
    required: ['text'],
    additionalProperties: false,
    properties: { text: { type: 'string', minLength: 1, maxLength: 500 } },
  });
  const pets = new Map<number, Pet>([
    [1, { id: 1, owner: 'alice', name: 'Rex', tag: 'loud', details: { type: 'dog', barks: true, breed: 'collie' } }],
    [2, { id: 2, owner: 'alice', name: 'Tom', details: { type: 'cat', lives: 9 } }],
    [3, { id: 3, owner: 'bob', name: 'Fido', tag: null, details: { type: 'dog', barks: false } }],
  ]);
  let nextPet = 4;
  let nextNote = 1;
  const shown = ({ secret, deleted: _deleted, ...pet }: Pet) => (bug === 'writeonly-echoed' && secret !== undefined ? { ...pet, secret } : pet);
  const userOf = (request: Request): string | undefined => {
    const header = request.headers.get('authorization');
    if (header === null && bug === 'no-auth-accepted') return 'alice';
    return Object.entries(PETS_USERS).find(([, token]) => header === `Bearer ${token}`)?.[0];
  };

  return async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const user = userOf(request);
    if (user === undefined) return error(401, 'a valid bearer token is required', { 'WWW-Authenticate': 'Bearer realm="pets"' });
    const segments = url.pathname.split('/').filter(Boolean);
    if (segments[0] !== 'pets' || segments.length > 3) return error(404, 'no such path');
    if (segments.length === 1) {
      if (request.method === 'GET') {
        const limit = integerQuery(url, 'limit', { min: 1, max: 100, default: 20 });
        if (limit instanceof Response) return limit;
        if (limit === 37 && bug === 'limit-37-500') return error(500, 'planted: limit 37');
        const visible = [...pets.values()].filter((pet) => !pet.deleted && (pet.owner === user || bug === 'bola-list'));
        return json(200, visible.slice(0, limit).map(shown));
      }
      if (request.method === 'POST') {
        if (bug === 'empty-body-500' && (await request.clone().text()) === '') return error(500, 'planted: empty body');
        const body = await jsonBody(request, fields);
        if (body instanceof Response) return body;
        let details = body['details'] as Record<string, unknown>;
        if (bug === 'oneof-optional-dropped') {
          const { breed: _breed, color: _color, ...rest } = details;
          details = rest;
        }
        const pet: Pet = {
          id: nextPet++,
          owner: user,
          name: String(body['name']),
          ...('tag' in body && { tag: body['tag'] as string | null }),
          ...(typeof body['secret'] === 'string' && { secret: body['secret'] }),
          details,
        };
        pets.set(pet.id, pet);
        return json(bug === 'create-200' ? 200 : 201, shown(pet));
      }
      return error(405, 'method not allowed', { Allow: 'GET, POST' });
    }
    if (!/^[1-9]\d*$/.test(segments[1] ?? '')) return error(400, 'id must be a positive integer');
    const id = Number(segments[1]);
    const found = pets.get(id);
    const pet = found && (found.owner === user || (bug === 'bola-read' && request.method === 'GET')) ? found : undefined;
    const alive = pet && (!pet.deleted || (bug === 'use-after-free' && request.method === 'GET')) ? pet : undefined;
    if (segments.length === 3) {
      if (segments[2] !== 'notes') return error(404, 'no such path');
      if (request.method !== 'POST') return error(405, 'method not allowed', { Allow: 'POST' });
      const body = await jsonBody(request, note);
      if (body instanceof Response) return body;
      if (!alive) return error(404, 'no such pet of yours');
      const text = String(body['text']);
      if (bug === 'note-500' || (bug === 'long-note-500' && text.length > 200)) return error(500, 'planted: note');
      return json(201, { id: nextNote++, petId: alive.id, text });
    }
    if (request.method === 'GET') return alive ? json(200, shown(alive)) : error(404, 'no such pet of yours');
    if (request.method === 'PATCH') {
      const body = await jsonBody(request, patch);
      if (body instanceof Response) return body;
      if (!alive) return error(404, 'no such pet of yours');
      if (bug === 'tag-null-500' && body['tag'] === null) return error(500, 'planted: tag null');
      const changed: Pet = {
        ...alive,
        ...(typeof body['name'] === 'string' && { name: body['name'] }),
        ...('tag' in body && { tag: body['tag'] as string | null }),
      };
      if (bug !== 'rename-ignored') pets.set(id, changed);
      return json(200, shown(changed));
    }
    if (request.method === 'DELETE') {
      if (!alive) return error(404, 'no such pet of yours');
      pets.set(id, { ...alive, deleted: true });
      return new Response(null, { status: 204 });
    }
    return error(405, 'method not allowed', { Allow: 'GET, PATCH, DELETE' });
  };
}
