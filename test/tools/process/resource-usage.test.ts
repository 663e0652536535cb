import { describe, expect, it } from 'vitest';
import { readCpuMs, readRssBytes } from '../../../tools/process/resource-usage.js';

describe('resource usage from /proc', () => {
  it("reads this process's RSS and CPU time, which grows with work", () => {
    const rss = readRssBytes(process.pid);
    expect(rss).toBeGreaterThan(10 * 1024 * 1024);
    expect(rss).toBeLessThan(process.memoryUsage().rss * 2);
    const before = readCpuMs(process.pid)!;
    const until = performance.now() + 50;
    while (performance.now() < until) Math.sqrt(Math.random());
    expect(readCpuMs(process.pid)).toBeGreaterThan(before);
  });

  it('reads nothing for a process that does not exist', () => {
    expect(readRssBytes(2 ** 22 + 1)).toBeUndefined();
    expect(readCpuMs(2 ** 22 + 1)).toBeUndefined();
  });
});
