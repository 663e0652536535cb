import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { passCache } from '../../../tools/check/pass-cache.js';

const root = mkdtempSync(join(tmpdir(), 'pass-cache-test-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const inputs = ['openapi', 'redocly.yaml'];
const cache = (env: NodeJS.ProcessEnv = {}) => passCache('lint', inputs, env, root);

describe('the pass cache of npm run check', () => {
  it('skips a check only on the exact inputs of its last pass, and never remembers a failure', () => {
    mkdirSync(join(root, 'openapi', 'parts'), { recursive: true });
    writeFileSync(join(root, 'openapi', 'api.yaml'), 'openapi: 3.1.0\n');
    writeFileSync(join(root, 'redocly.yaml'), 'extends: [recommended]\n');
    expect(cache().unchanged, 'never passed yet').toBe(false);
    // A failing run records nothing, so the next run checks again.
    expect(cache().unchanged).toBe(false);
    cache().recordPass();
    expect(cache().unchanged).toBe(true);

    const edits: Array<[string, () => void, () => void]> = [
      [
        'an edited spec',
        () => writeFileSync(join(root, 'openapi', 'api.yaml'), 'openapi: 3.1.1\n'),
        () => writeFileSync(join(root, 'openapi', 'api.yaml'), 'openapi: 3.1.0\n'),
      ],
      [
        'a new file in a folder',
        () => writeFileSync(join(root, 'openapi', 'parts', 'x.yaml'), 'a: 1\n'),
        () => rmSync(join(root, 'openapi', 'parts', 'x.yaml')),
      ],
      ['a removed config', () => rmSync(join(root, 'redocly.yaml')), () => writeFileSync(join(root, 'redocly.yaml'), 'extends: [recommended]\n')],
    ];
    for (const [change, make, undo] of edits) {
      make();
      expect(cache().unchanged, change).toBe(false);
      undo();
      expect(cache().unchanged, `${change}, undone`).toBe(true);
    }
  });

  it('is off with CHECK_CACHE=off', () => {
    cache().recordPass();
    expect(cache({ CHECK_CACHE: 'off' }).unchanged).toBe(false);
  });
});
