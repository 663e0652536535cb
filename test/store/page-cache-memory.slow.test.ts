/**
 * The page cache is bounded by the bytes it holds, not by its number of pages: one key on a large
 * account, paging through it with full pages, used to pin about 50 MiB (1,000 pages of 100 items).
 * Measured in a process of its own, after garbage collection.
 */
import { describe, expect, it } from 'vitest';
import { runCommand } from '../../tools/process/run-command.js';
import { PAGE_CACHE_BYTES } from '../../src/store/cached-store.js';

describe('the page cache under one key on a large account', () => {
  it(`keeps about PAGE_CACHE_BYTES (${PAGE_CACHE_BYTES / 1024 / 1024} MiB) of pages, whatever the number of pages read`, async () => {
    const { code, stdout, stderr } = await runCommand([process.execPath, '--expose-gc', '--import', 'tsx', 'test/store/fixtures/page-cache-heap.ts'], {
      timeoutMs: 60_000,
    });
    expect(code, stderr).toBe(0);
    const { peakRetainedBytes } = JSON.parse(stdout) as { peakRetainedBytes: number };
    // The budget is an estimate of the pages' size; the heap they really keep may differ by a little, not by multiples.
    expect(peakRetainedBytes).toBeLessThan(PAGE_CACHE_BYTES * 1.5);
    // And the cache is used: it keeps more than a few pages.
    expect(peakRetainedBytes).toBeGreaterThan(PAGE_CACHE_BYTES / 4);
  });
});
