import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import getPort from 'get-port';
import { launch } from '../../../tools/process/launch.js';
import { waitForHttp, waitForOutput } from '../../../tools/process/ready.js';

const node = (script: string) => [process.execPath, '-e', script];

describe('waitForOutput', () => {
  it('returns the match once the process prints it', async () => {
    const launched = launch(node("setTimeout(() => console.log('Listening on http://127.0.0.1:1234'), 100); setTimeout(() => {}, 5000)"));
    try {
      const match = await waitForOutput(launched, /^Listening on (\S+)$/m);
      expect(match[1]).toBe('http://127.0.0.1:1234');
    } finally {
      await launched.stop();
    }
  });

  it('fails as soon as the process ends, with how it ended and its last output', async () => {
    const launched = launch(node("console.error('DATABASE_PATH is not writable'); process.exit(2)"));
    await expect(waitForOutput(launched, /^Listening on/m, { timeoutMs: 10_000 })).rejects.toThrow(
      /ended \(exit code 2\) before printing .*; its last output:\nDATABASE_PATH is not writable/,
    );
  });

  it('fails after timeoutMs', async () => {
    const launched = launch(node('setTimeout(() => {}, 5000)'));
    try {
      await expect(waitForOutput(launched, /never/, { timeoutMs: 100 })).rejects.toThrow('did not print /never/ within 100 ms');
    } finally {
      await launched.stop();
    }
  });
});

describe('waitForHttp', () => {
  let server: Server;
  let url: string;
  let answered = 0;
  beforeAll(async () => {
    // 503 for the first two requests, then 200: what a process that is still starting looks like.
    server = createServer((_request, response) => response.writeHead(++answered > 2 ? 200 : 503).end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('asks until it gets the status and returns how long that took', async () => {
    const launched = launch(node('setTimeout(() => {}, 5000)'));
    try {
      const ms = await waitForHttp(launched, { url, method: 'POST', body: '{}', status: 200 }, { intervalMs: 5 });
      expect(answered).toBe(3);
      expect(ms).toBeGreaterThan(0);
    } finally {
      await launched.stop();
    }
  });

  it('fails as soon as the process ends, saying what the last attempt got', async () => {
    const launched = launch(node('process.exit(1)'));
    const port = await getPort();
    await expect(waitForHttp(launched, { url: `http://127.0.0.1:${port}/`, status: 200 })).rejects.toThrow(
      /ended \(exit code 1\) before http:\/\/127\.0\.0\.1:\d+\/ answered 200/,
    );
  });

  it('fails after timeoutMs when nothing answers', async () => {
    const launched = launch(node('setTimeout(() => {}, 5000)'));
    try {
      const port = await getPort();
      await expect(waitForHttp(launched, { url: `http://127.0.0.1:${port}/`, status: 200 }, { timeoutMs: 100 })).rejects.toThrow(
        /did not answer 200 within 100 ms \(.*ECONNREFUSED/,
      );
    } finally {
      await launched.stop();
    }
  });
});
