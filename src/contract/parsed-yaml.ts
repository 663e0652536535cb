import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { parse } from 'yaml';
import { projectRoot } from './project.js';

/**
 * The parse of a YAML text, once per text. `yaml` takes 0.1 to 0.3 s of CPU for each contract, and every process
 * that reads one pays it: the server (twice at each start, so `npm run dev` at each save), the mock, the CLIs, each
 * test worker. So a parse is kept twice over:
 * - in this process, by its text, handed out as a copy (callers, tests most of all, change what they get);
 * - on disk, as JSON under `node_modules/.cache/` (where tools keep their caches: out of git, gone with a clean
 *   install), named by the SHA-256 of the text and of `yaml`'s version, so an edit or an upgrade is a new entry
 *   and a stale one is never read. `JSON.parse` takes a few milliseconds.
 * Only a document made of JSON values (what an OpenAPI document is) is written; anything else, or a folder that
 * cannot be written (a read-only install), only costs the parse. The newest 32 entries are kept.
 */
export function parseYaml(text: string): unknown {
  let parsed = inMemory.get(text);
  if (parsed === undefined) {
    parsed = readOrParse(text);
    if (inMemory.size >= MEMORY_ENTRIES) inMemory.delete(inMemory.keys().next().value as string);
    inMemory.set(text, parsed);
  }
  return structuredClone(parsed);
}

/** Texts kept parsed in memory: the two contracts, with room for a test's variants. */
const MEMORY_ENTRIES = 8;
const inMemory = new Map<string, unknown>();

export const PARSED_YAML_CACHE = join(projectRoot, 'node_modules', '.cache', 'bearer-list-api', 'parsed-yaml');

function readOrParse(text: string): unknown {
  const file = join(PARSED_YAML_CACHE, `${createHash('sha256').update(yamlVersion()).update('\0').update(text).digest('hex')}.json`);
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    // Not there yet (or cut short by a crash): parse it, and keep it for the next process.
  }
  const parsed = parse(text) as unknown;
  if (isJson(parsed)) {
    try {
      mkdirSync(PARSED_YAML_CACHE, { recursive: true });
      // Written whole under a name of its own (threads share a pid), then renamed: a reader never sees half a file.
      const partial = `${file}.${randomUUID()}.tmp`;
      try {
        writeFileSync(partial, JSON.stringify(parsed));
        renameSync(partial, file);
      } finally {
        rmSync(partial, { force: true });
      }
      forgetOldest();
    } catch {
      // A read-only install: every process parses, as it would without the cache.
    }
  }
  return parsed;
}

/** Entries kept on disk: every save of a spec in `npm run dev` makes one (a contract is about 100 KB of JSON). */
const DISK_ENTRIES = 32;

/** Removes all but the newest `DISK_ENTRIES` entries (run on a miss only, so a read costs no directory listing). */
function forgetOldest(): void {
  const entries = readdirSync(PARSED_YAML_CACHE)
    .filter((name) => name.endsWith('.json'))
    .map((name) => {
      const path = join(PARSED_YAML_CACHE, name);
      try {
        return { path, mtimeMs: statSync(path).mtimeMs };
      } catch {
        return undefined; // removed by another process meanwhile
      }
    })
    .filter((entry) => entry !== undefined)
    .sort((a, b) => b.mtimeMs - a.mtimeMs);
  for (const { path } of entries.slice(DISK_ENTRIES)) rmSync(path, { force: true });
}

let version: string | undefined;

function yamlVersion(): string {
  version ??= (createRequire(import.meta.url)('yaml/package.json') as { version: string }).version;
  return version;
}

/** Whether JSON holds `value` as it is: no `undefined`, no non-finite number, no Date or other class (YAML can make some). */
function isJson(value: unknown): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(isJson);
  if (typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype) return false;
  return Object.values(value).every(isJson);
}
