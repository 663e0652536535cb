import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { portToBindLater } from '../../src/cli/port-to-bind-later.js';

describe('portToBindLater', () => {
  it('picks free ports below the ephemeral range (32768-60999), where no listener on port 0 and no outgoing connection is handed them', async () => {
    const ports = await Promise.all(Array.from({ length: 8 }, () => portToBindLater()));
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(20_000);
      expect(port).toBeLessThan(32_768);
    }
    // Never the same port twice in one process, even while none of them is bound yet.
    expect(new Set(ports).size).toBe(ports.length);
    const server = createServer();
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(ports[0], '127.0.0.1', resolve));
    await new Promise((resolve) => server.close(resolve));
  });
});
