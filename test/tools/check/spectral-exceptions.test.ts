import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { projectRoot, readContracts } from '../../../src/contract/project.js';
import type { Json } from '../../../src/contract/spec.js';
import { describeStaleException, readStaleExceptions, staleExceptionNote, staleExceptions } from '../../../tools/check/spectral-exceptions.js';
import { ITEM_TEXT_FIELD, RENAMED_TEXT_FIELD, renameItemText } from '../../helpers/item-fixture.js';

const ruleset = readFileSync(join(projectRoot, '.spectral.yaml'), 'utf8');
const contracts = readContracts();
const main = contracts.find((contract) => contract.name === 'main')!;
const spec = (text: string) => parse(text) as Json;
const mainText = readFileSync(main.spec, 'utf8');
const released = spec(readFileSync(main.released, 'utf8'));
/** The public spec with the item's free-text field renamed, as a developer renames it; its place as .spectral.yaml names it. */
const renamed = renameItemText(mainText);
const [field, renamedField] = [ITEM_TEXT_FIELD.name, RENAMED_TEXT_FIELD];
const pointer = (name: string) => `#/components/schemas/Item/properties/${name}`;
const place = (name: string) => `openapi/openapi.yaml${pointer(name)}`;
/** A place as a regular expression matches it in a message. */
const pattern = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

describe('the exceptions of .spectral.yaml whose place the spec no longer has', () => {
  it('finds none today', () => {
    expect(readStaleExceptions(contracts)).toEqual([]);
  });

  it(`names the exception for Item.${field} once it is renamed, with its line and the place it probably meant`, () => {
    expect(renamed).not.toBe(mainText);
    const stale = staleExceptions(ruleset, [{ file: 'openapi/openapi.yaml', current: spec(renamed), released }]);
    expect(stale).toHaveLength(1);
    const [exception] = stale;
    expect(ruleset.split('\n')[(exception?.line ?? 0) - 1]).toContain(`'${place(field)}'`);
    expect(exception?.newSiblings).toEqual([renamedField]);
    expect(describeStaleException(exception!)).toMatch(
      new RegExp(
        `^update \\.spectral\\.yaml:\\d+: the exception for ${pattern(place(field))} \\(owasp:api4:2023-string-restricted off\\) is stale: .*point it at ${pattern(place(renamedField))}`,
      ),
    );
  });

  it("keeps a pattern's place that one of the specs it names still has (openapi/*.yaml)", () => {
    // `openapi/*.yaml#/servers/1` names both specs: without the public one's servers, the account spec still has its second.
    const withoutServers = spec(mainText.replace(/\nservers:\n(?: {2}.*\n)+/, '\n'));
    expect(withoutServers).not.toHaveProperty('servers');
    const stale = staleExceptions(ruleset, [
      { file: 'openapi/openapi.yaml', current: withoutServers, released },
      { file: 'openapi/account.yaml', current: spec(readFileSync(join(projectRoot, 'openapi/account.yaml'), 'utf8')) },
    ]);
    expect(stale).toEqual([]);
    // With the public spec alone, no spec the pattern names has the place.
    const alone = staleExceptions(ruleset, [{ file: 'openapi/openapi.yaml', current: withoutServers, released }]);
    expect(alone.map((exception) => exception.place)).toEqual(['openapi/*.yaml#/servers/1']);
  });

  it("says beside Spectral's finding at the new place that the stale exception, not the spec, is the edit", () => {
    const [exception] = staleExceptions(ruleset, [{ file: 'openapi/openapi.yaml', current: spec(renamed), released }]);
    const finding = {
      file: 'openapi/openapi.yaml',
      code: 'owasp:api4:2023-string-restricted',
      path: ['components', 'schemas', 'Item', 'properties', renamedField],
    };
    expect(staleExceptionNote(finding, [exception!])).toMatch(
      new RegExp(
        `^stale exception: \\.spectral\\.yaml:\\d+ turns this rule off at ${pattern(pointer(field))}, .*point that exception at ${pattern(pointer(renamedField))}`,
      ),
    );
    // Another rule, or a place under another parent, is the spec's to fix.
    expect(staleExceptionNote({ ...finding, code: 'owasp:api4:2023-integer-limit' }, [exception!])).toBeUndefined();
    expect(staleExceptionNote({ ...finding, path: ['components', 'schemas', 'ListRequest', 'properties', renamedField] }, [exception!])).toBeUndefined();
  });
});
