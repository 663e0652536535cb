import { Writable } from 'node:stream';
import { Hono } from 'hono';
import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isoTimeOncePerMillisecond, requestLog } from '../../src/server/request-log.js';

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
    expect(Object.keys(line ?? {})).toEqual(['level', 'time', 'requestId', 'clientRequestId', 'listener', 'method', 'path', 'status', 'durationMs']);
    expect(line).toMatchObject({
      requestId: await response.text(),
      clientRequestId: 'trace-7',
      listener: 'web',
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
