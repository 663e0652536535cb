/**
 * Secrets stay secret: an API key, or any Authorization value, sent anywhere in
 * a request (header, query string, path, body, other headers) never reaches the
 * logs, in-process or from the real process at the most verbose level; and the
 * database holds only digests of keys, never a key.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generateApiKey } from '../../src/keys/api-key.js';
import { makeKey } from '../../tools/process/make-key.js';
import { scratchDatabase } from '../../tools/process/scratch-database.js';
import { startServer } from '../../tools/process/server.js';
import { createTestApp } from '../helpers/app.js';
import { exchange, httpRequest } from './helpers/raw-http.js';

const KEY_SHAPED = /tka_[0-9A-Za-z]{8,}/;

/** Every way a request can carry a secret, as [method, path, headers, body]. */
function requestsCarrying(key: string): Array<[string, string, Record<string, string>, string | undefined]> {
  const basic = Buffer.from(`ann:${key}`).toString('base64');
  const json = { 'Content-Type': 'application/json' };
  return [
    ['POST', '/', { Authorization: `Bearer ${key}`, ...json }, '{}'],
    ['POST', '/shared', { Authorization: `bearer   ${key}`, ...json }, '{"sort":"desc"}'],
    ['GET', '/shared', { Authorization: `Bearer ${key}` }, undefined],
    ['GET', `/shared?access_token=${key}`, {}, undefined],
    ['GET', `/shared?access_token=${key}&api_key=${encodeURIComponent(key)}`, { Authorization: `Bearer ${key}` }, undefined],
    ['GET', `/${key}`, {}, undefined],
    ['GET', `/shared/${key}`, { Authorization: `Bearer ${key}` }, undefined],
    ['GET', `/${encodeURIComponent(key).replace('t', '%74')}`, {}, undefined],
    ['POST', '/', { Authorization: `Bearer ${key}`, ...json }, JSON.stringify({ key })],
    ['POST', '/', { Authorization: `Bearer ${key}`, ...json }, JSON.stringify({ [key]: 1 })],
    ['POST', '/', { Authorization: `Bearer ${key}`, ...json }, `{"cursor":"${key}"}`],
    ['POST', '/', { Authorization: `Bearer ${key}`, ...json }, `{"broken":"${key}`],
    ['POST', '/', { Authorization: `Basic ${basic}`, ...json }, '{}'],
    ['POST', '/', { Authorization: `Bearer ${key}x`, ...json }, '{}'],
    ['POST', '/', { Authorization: `Token ${key}`, ...json }, '{}'],
    ['POST', '/', { Authorization: key, ...json }, '{}'],
    ['POST', '/', { Authorization: `Bearer ${key}`, 'X-Api-Key': key, Cookie: `session=${key}`, Referer: `https://example.com/?k=${key}`, ...json }, '{}'],
    ['PUT', '/', { Authorization: `Bearer ${key}` }, undefined],
    ['POST', '/', { Authorization: `Bearer ${key}`, 'Content-Type': 'text/plain' }, key],
    ['POST', '/', { Authorization: `Bearer ${key}`, 'X-Request-Id': key, ...json }, '{}'],
    ['GET', '/shared', { 'X-Request-Id': key.toUpperCase() }, undefined],
  ];
}

/** The secret part of a key and slices of it, so a partial leak is caught too. */
function fragments(key: string): string[] {
  const secret = key.slice('tka_'.length);
  return [key, secret, secret.slice(0, 16), secret.slice(16, 32), Buffer.from(`ann:${key}`).toString('base64')];
}

/** Logged values as text, with errors spelled out (JSON.stringify drops their message and stack). */
function logText(entries: unknown[]): string {
  return JSON.stringify(entries, (_name, value: unknown) =>
    value instanceof Error ? { name: value.name, message: value.message, stack: value.stack } : value,
  );
}

describe('secrets never reach the logs', () => {
  it('in-process: the log recorder holds no key, whatever the request carried, also when a request fails', async () => {
    const t = await createTestApp();
    const { key } = await t.addUser('ann');
    const unknown = generateApiKey().key;
    for (const [method, path, headers, body] of [...requestsCarrying(key), ...requestsCarrying(unknown)]) {
      await t.send(method, path, { headers, ...(body !== undefined && { rawBody: new TextEncoder().encode(body) }) });
    }
    t.store.listItems = () => {
      throw new Error('the store failed');
    };
    await t.send('POST', '/', { key, body: {}, expectServerError: true });
    const text = logText(t.logs);
    expect(t.logs.length).toBeGreaterThan(30);
    for (const fragment of [...fragments(key), ...fragments(unknown)]) expect(text).not.toContain(fragment);
    expect(text).not.toMatch(KEY_SHAPED);
    expect(text.toLowerCase()).not.toContain('authorization');
  });

  it('in-process: no answer echoes a key, in X-Request-Id or in the detail of a JSON error', async () => {
    const t = await createTestApp();
    const { key } = await t.addUser('ann');
    for (const [method, path, headers, body] of requestsCarrying(key)) {
      const response = await t.send(method, path, { headers, ...(body !== undefined && { rawBody: new TextEncoder().encode(body) }) });
      const answer = `${JSON.stringify([...response.headers])}${response.text}`;
      for (const fragment of fragments(key)) expect(answer, `${method} ${path}`).not.toContain(fragment);
    }
    const broken = await t.send('POST', '/', {
      key,
      headers: { 'Content-Type': 'application/json' },
      rawBody: new TextEncoder().encode('{"note":"private words",'),
    });
    expect(broken.json.detail).toBe('The request body is not valid JSON.');
  });

  it("logs a plain client X-Request-Id beside the server's own id, and answers with the server's", async () => {
    const t = await createTestApp();
    const { key } = await t.addUser('ann');
    const response = await t.send('POST', '/', { key, body: {}, headers: { 'X-Request-Id': 'trace-42' } });
    expect(response.headers.get('x-request-id')).not.toBe('trace-42');
    expect(t.logs.at(-1)).toMatchObject({ requestId: response.headers.get('x-request-id'), clientRequestId: 'trace-42' });
  });

  it('from a real process at LOG_LEVEL=trace: stdout and stderr hold no key; the database holds only its digest', async () => {
    const database = scratchDatabase('secrets-');
    try {
      const { key } = await makeKey(database.path, 'ann');
      const unknown = generateApiKey().key;
      const server = await startServer({ databasePath: database.path, env: { LOG_LEVEL: 'trace' } });
      let stopped = false;
      try {
        for (const [method, path, headers, body] of [...requestsCarrying(key), ...requestsCarrying(unknown)]) {
          const response = await fetch(`${server.url}${path}`, { method, headers, ...(body !== undefined && { body }) });
          await response.arrayBuffer();
        }
        // What only a socket can send: two Authorization lines, a header block too large to parse, a broken request.
        await exchange(
          server.port,
          [
            httpRequest('GET', '/shared', [
              ['Authorization', `Bearer ${key}`],
              ['Authorization', `Bearer ${key}`],
            ]),
          ],
          { untilResponses: 1 },
        );
        await exchange(
          server.port,
          [
            httpRequest('GET', '/shared', [
              ['Authorization', `Bearer ${key}`],
              ['X-Pad', key.repeat(500)],
            ]),
          ],
          { untilResponses: 1 },
        );
        await exchange(server.port, [`GET /shared HTTP/1.1\r\nAuthorization: Bearer ${key}\r\nBad Header: ${key}\r\n\r\n`], { untilResponses: 1 });

        // While running, the key is neither in the database file nor in its WAL.
        expectOnlyDigest(database.path, key);
        expect((await server.stop()).code).toBe(0);
        stopped = true;
        expectOnlyDigest(database.path, key);

        const output = server.stdout() + server.stderr();
        expect(output.split('\n').filter((line) => line.startsWith('{')).length).toBeGreaterThan(30);
        for (const fragment of [...fragments(key), ...fragments(unknown)]) expect(output).not.toContain(fragment);
        expect(output).not.toMatch(KEY_SHAPED);
      } finally {
        if (!stopped) await server.stop();
      }
    } finally {
      database.remove();
    }
  });
});

/** The SQLite files hold the key's SHA-256 digest and nothing of the key itself. */
function expectOnlyDigest(databasePath: string, key: string): void {
  const files = [databasePath, `${databasePath}-wal`].filter((file) => existsSync(file)).map((file) => readFileSync(file));
  const all = Buffer.concat(files);
  for (const fragment of fragments(key)) {
    expect(all.includes(Buffer.from(fragment, 'utf8')), `the database files contain ${fragment.slice(0, 6)}…`).toBe(false);
    expect(all.includes(Buffer.from(fragment, 'utf16le'))).toBe(false);
  }
  expect(all.toString('latin1')).not.toMatch(KEY_SHAPED);
  expect(all.includes(createHash('sha256').update(key).digest()), 'the digest is what is stored').toBe(true);
}
