import { createServer } from 'node:net';

/**
 * A port nothing listens on right now on `host` (default loopback); the kernel picks it. For a
 * program that needs its port before it starts (Prism, the bench peers); the server itself takes
 * `PORT=0` and prints where it listens.
 */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.unref();
    probe.once('error', reject);
    probe.listen(0, host, () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => (port > 0 ? resolve(port) : reject(new Error(`no free port on ${host}`))));
    });
  });
}
