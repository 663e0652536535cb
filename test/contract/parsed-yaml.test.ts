import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PARSED_YAML_CACHE, parseYaml } from '../../src/contract/parsed-yaml.js';

/** A text no earlier run has parsed, so its cache entry is made by this test. */
function freshText(body: string): string {
  return `# parsed-yaml.test ${process.pid} ${performance.now()} ${Math.random()}\n${body}`;
}

/** The cache's entries that hold `id` (each test's texts carry an id of their own). */
function entriesHolding(id: string): string[] {
  if (!existsSync(PARSED_YAML_CACHE)) return [];
  return readdirSync(PARSED_YAML_CACHE).filter((file) => file.endsWith('.json') && readFileSync(join(PARSED_YAML_CACHE, file), 'utf8').includes(id));
}

describe('parseYaml: a YAML text parsed once, kept in memory and on disk', () => {
  it("gives the parse of the text, a fresh copy each time, so a caller that changes it changes nobody else's", () => {
    const text = freshText('marker: copy-test\nlist: [1, 2]\nnested: { a: b }\n');
    const first = parseYaml(text) as { list: number[]; nested: { a: string } };
    expect(first).toEqual({ marker: 'copy-test', list: [1, 2], nested: { a: 'b' } });
    first.list.push(3);
    first.nested.a = 'changed';
    expect(parseYaml(text)).toEqual({ marker: 'copy-test', list: [1, 2], nested: { a: 'b' } });
  });

  it('keeps the parse on disk as JSON, for the next process', () => {
    const id = `disk-${process.pid}-${Math.random().toString(36).slice(2)}`;
    const text = freshText(`marker: ${id}\nanswer: 42\n`);
    parseYaml(text);
    const kept = entriesHolding(id);
    expect(kept).toHaveLength(1);
    expect(JSON.parse(readFileSync(join(PARSED_YAML_CACHE, kept[0]!), 'utf8'))).toEqual({ marker: id, answer: 42 });
  });

  it('keeps the newest 32 entries on disk, so saves in npm run dev do not fill it', () => {
    const ids = Array.from({ length: 33 }, (_, index) => `prune-${index}-${process.pid}-${Math.random().toString(36).slice(2)}`);
    for (const id of ids) parseYaml(freshText(`marker: ${id}\n`));
    // The first of these is older than 32 others by now (another test file may be writing too: no count is exact).
    expect(entriesHolding(ids[0]!)).toEqual([]);
    expect(entriesHolding(ids.at(-1)!)).toHaveLength(1);
  });

  it('keeps on disk only what JSON holds as it is: an infinite number is parsed, not written', () => {
    const id = `inf-${process.pid}-${Math.random().toString(36).slice(2)}`;
    const text = freshText(`marker: ${id}\nlimit: .inf\n`);
    expect(parseYaml(text)).toEqual({ marker: id, limit: Number.POSITIVE_INFINITY });
    expect(entriesHolding(id)).toEqual([]);
  });

  it("throws YAML's own error for a text that does not parse", () => {
    expect(() => parseYaml(freshText('a: [1, 2\n'))).toThrow(/Flow sequence|missing/i);
  });
});
