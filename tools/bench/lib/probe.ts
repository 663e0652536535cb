// Before a server is measured, check that it does the work: answers the request with the
// ten items as a valid ItemPage, refuses a missing token and refuses a body the contract rejects.
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { loadSpec } from '../../../src/contract/spec.js';
import { compileSpecSchema, createSpecAjv } from '../../../src/contract/schemas.js';
import { ITEM_COUNT, REQUEST_BODY, requestHeaders, type ItemPage } from './fixture.js';
import { specPath } from './spec.js';

export interface ProbeResult {
  /** Size of the 200 answer's body. */
  bytes: number;
  /** How many headers came with it (Node's own Date, Connection, Keep-Alive and Content-Length included). */
  headers: number;
  /** What the server got wrong; empty when it behaves as the contract says. */
  problems: string[];
}

const spec = loadSpec(specPath);
// The spec's own schema; what passes it has the generated type's shape.
const validateItemPage = compileSpecSchema(createSpecAjv(spec), { $ref: '#/components/schemas/ItemPage' }) as ValidateFunction<ItemPage>;

export async function probe(url: string, key: string): Promise<ProbeResult> {
  const problems: string[] = [];
  const ok = await fetch(url, { method: 'POST', headers: requestHeaders(key), body: REQUEST_BODY });
  const text = await ok.text();
  if (ok.status !== 200) problems.push(`the request got ${ok.status}, not 200`);
  else {
    const page: unknown = JSON.parse(text);
    if (!validateItemPage(page)) problems.push(`the answer is not an ItemPage: ${JSON.stringify(validateItemPage.errors?.[0])}`);
    else if (page.items.length !== ITEM_COUNT) problems.push(`the answer has ${page.items.length} items, not ${ITEM_COUNT}`);
  }
  const anonymous = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: REQUEST_BODY });
  await anonymous.arrayBuffer();
  if (anonymous.status !== 401) problems.push(`no token got ${anonymous.status}, not 401`);
  const invalid = await fetch(url, { method: 'POST', headers: requestHeaders(key), body: JSON.stringify({ sort: 'sideways', limit: 10 }) });
  await invalid.arrayBuffer();
  if (invalid.status !== 400 && invalid.status !== 422) problems.push(`sort "sideways" got ${invalid.status}, not 400 or 422`);
  return { bytes: Buffer.byteLength(text), headers: [...ok.headers.keys()].length, problems };
}
