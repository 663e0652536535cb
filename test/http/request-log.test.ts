import { Writable } from 'node:stream';
import { Hono } from 'hono';
import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { destinationRequestLines, formatRequestLine, isoTimeOncePerMillisecond, type RequestLine } from '../../src/http/request-lines.js';
import { requestLog } from '../../src/http/request-log.js';

/** A pino logger configured as the server's (redaction, the timestamp), writing into an array of parsed lines. */
function recordingPino(): { logger: pino.Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const text of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(text) as Record<string, unknown>);
      done();
    },
  });
  const logger = pino(
    { level: 'info', base: null, timestamp: isoTimeOncePerMillisecond, redact: ['authorization', '*.authorization', 'headers.authorization'] },
    sink,
  );
  return { logger, lines };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('the request log', () => {
  it('writes one line per request with the fixed fields, through a real pino logger, and leaves redaction on for free-form lines', async () => {
    const { logger, lines } = recordingPino();
    const app = new Hono<{ Variables: { requestId: string } }>();
    app.use(requestLog(logger, { requestIdMaxLength: 200, listener: 'web' }));
    app.get('/shared/:id', (c) => c.text(c.get('requestId')));
    const key = `tka_${'a'.repeat(38)}`;
    const response = await app.request(`/shared/${key}?access_token=${key}`, { headers: { 'X-Request-Id': 'trace-7', Authorization: `Bearer ${key}` } });
    logger.info({ request: { authorization: `Bearer ${key}` } }, 'free-form');
    await new Promise((resolve) => setImmediate(resolve));

    expect(lines).toHaveLength(2);
    const [line, freeForm] = lines;
    expect(Object.keys(line ?? {})).toEqual([
      'level',
      'time',
      'requestId',
      'clientRequestId',
      'listener',
      'clientAddress',
      'method',
      'path',
      'status',
      'durationMs',
    ]);
    expect(line).toMatchObject({
      requestId: await response.text(),
      clientRequestId: 'trace-7',
      listener: 'web',
      clientAddress: 'in-process',
      method: 'GET',
      path: '/shared/tka_[REDACTED]',
      status: 200,
      durationMs: expect.any(Number),
    });
    expect(line?.['time']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(freeForm).toMatchObject({ request: { authorization: '[Redacted]' }, msg: 'free-form' });
    expect(JSON.stringify(lines)).not.toContain(key);
  });

  it('is not assembled when info is off', async () => {
    const { logger, lines } = recordingPino();
    logger.level = 'warn';
    const app = new Hono<{ Variables: { requestId: string } }>();
    app.use(requestLog(logger, { requestIdMaxLength: 200 }));
    app.get('/', (c) => c.text('ok'));
    expect((await app.request('/')).status).toBe(200);
    expect(lines).toEqual([]);
  });
});

describe("the server's batched request lines", () => {
  const line: RequestLine = {
    at: Date.UTC(2026, 10, 22, 10, 0, 0, 5),
    requestId: '6f1c2d3e-0000-4000-8000-000000000001',
    clientRequestId: 'trace-7',
    listener: 'web',
    clientAddress: '203.0.113.7',
    method: 'POST',
    path: '/shared',
    status: 200,
    durationMs: 0.42,
  };

  it('are the very lines pino writes for the same fields, byte for byte', () => {
    vi.useFakeTimers();
    vi.setSystemTime(line.at);
    const written: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        written.push(chunk.toString('utf8'));
        done();
      },
    });
    const logger = pino({ level: 'info', base: null, timestamp: isoTimeOncePerMillisecond }, sink);
    const { at: _at, ...fields } = line;
    logger.info(fields);
    const { clientRequestId: _client, listener: _listener, ...plain } = fields;
    logger.info(plain);
    expect(formatRequestLine(line)).toBe(written[0]);
    expect(formatRequestLine({ ...plain, at: line.at })).toBe(written[1]);
  });

  it('quote whatever a path holds, so a line stays one JSON object', () => {
    const path = '/"},"admin":true,"x":"\n\u2028\u0000';
    const text = formatRequestLine({ ...line, path });
    expect(text.endsWith('}\n')).toBe(true);
    expect(text.slice(0, -1)).not.toContain('\n');
    expect(JSON.parse(text)).toMatchObject({ path, status: 200 });
    expect(Object.keys(JSON.parse(text))).not.toContain('admin');
  });

  it('are written into the destination each as it is answered, one line a write, with no queue of their own', () => {
    const writes: string[] = [];
    const lines = destinationRequestLines((text) => writes.push(text));
    lines.add(line);
    lines.add({ ...line, status: 404 });
    expect(writes.map((text) => JSON.parse(text).status)).toEqual([200, 404]);
    expect(writes.every((text) => text.endsWith('}\n') && !text.slice(0, -1).includes('\n'))).toBe(true);
  });

  it("take the middleware's lines in place of the logger", async () => {
    const { logger, lines: pinoLines } = recordingPino();
    const writes: string[] = [];
    const app = new Hono<{ Variables: { requestId: string } }>();
    app.use(requestLog(logger, { requestIdMaxLength: 200, lines: destinationRequestLines((text) => writes.push(text)) }));
    app.get('/', (c) => c.text(c.get('requestId')));
    const response = await app.request('/?access_token=secret');
    await new Promise((resolve) => setImmediate(resolve));
    expect(pinoLines).toEqual([]);
    expect(JSON.parse(writes.join(''))).toMatchObject({ level: 30, requestId: await response.text(), method: 'GET', path: '/', status: 200 });
  });
});

describe('isoTimeOncePerMillisecond', () => {
  it("is pino's isoTime, formatted again only when the millisecond changes", () => {
    vi.useFakeTimers();
    vi.setSystemTime(Date.UTC(2026, 10, 22, 10, 0, 0, 5));
    const first = isoTimeOncePerMillisecond();
    expect(first).toBe(pino.stdTimeFunctions.isoTime());
    expect(isoTimeOncePerMillisecond()).toBe(first);
    vi.setSystemTime(Date.UTC(2026, 10, 22, 10, 0, 0, 6));
    expect(isoTimeOncePerMillisecond()).toBe(',"time":"2026-11-22T10:00:00.006Z"');
  });
});
