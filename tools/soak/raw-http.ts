/**
 * A raw HTTP/1.1 client over a plain socket, for what no HTTP library sends: the wire-level
 * tests (test/robustness/) and the soak's slow clients.
 */
import { connect, type Socket } from 'node:net';

/** One HTTP/1.1 response as it came over the wire. */
export interface RawResponse {
  status: number;
  /** Header names lower-cased; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: string;
}

export interface RawExchange {
  responses: RawResponse[];
  /** Everything the server sent, as text. */
  raw: string;
  /** True when the server closed the connection (rather than us timing out). */
  closedByServer: boolean;
  /** Milliseconds from connecting until the server closed the connection or we gave up. */
  elapsedMs: number;
  error?: NodeJS.ErrnoException;
}

/** A step of a scripted client: bytes to write, or a pause. */
export type Step = string | Uint8Array | { pauseMs: number };

/**
 * Speaks HTTP over a plain socket, byte for byte, so a test can send what no
 * HTTP client library would: repeated headers, broken framing, invalid bytes, a
 * request dribbled out slowly. Resolves when the server closes the connection,
 * or `waitMs` after the last step.
 */
export function exchange(
  port: number,
  steps: Step[],
  options: {
    waitMs?: number;
    untilResponses?: number;
    /** The client's own address, e.g. `127.0.0.2` (any of 127.0.0.0/8 reaches a loopback listener on Linux), to look like another client. */
    localAddress?: string;
    /** The answers carry no body whatever their headers say (answers to HEAD). */
    bodiless?: boolean;
    /** Gives up at once, as if `waitMs` had passed. */
    signal?: AbortSignal;
  } = {},
): Promise<RawExchange> {
  const started = performance.now();
  const parse = (data: Buffer) => parseResponses(data, { bodiless: options.bodiless ?? false });
  return new Promise((resolve) => {
    const socket: Socket = connect({ port, host: '127.0.0.1', ...(options.localAddress && { localAddress: options.localAddress }) });
    const chunks: Buffer[] = [];
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = (closedByServer: boolean, error?: NodeJS.ErrnoException) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      socket.destroy();
      const raw = Buffer.concat(chunks);
      resolve({ responses: parse(raw), raw: raw.toString('latin1'), closedByServer, elapsedMs: performance.now() - started, ...(error && { error }) });
    };
    const onAbort = () => finish(false);
    if (options.signal?.aborted) queueMicrotask(onAbort);
    else options.signal?.addEventListener('abort', onAbort, { once: true });
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      if (options.untilResponses !== undefined && parse(Buffer.concat(chunks)).length >= options.untilResponses) finish(false);
    });
    socket.on('end', () => finish(true));
    socket.on('close', () => finish(true));
    socket.on('error', (error: NodeJS.ErrnoException) => finish(true, error));
    socket.once('connect', async () => {
      for (const step of steps) {
        if (settled) return;
        if (typeof step === 'object' && 'pauseMs' in step) await new Promise((wait) => setTimeout(wait, step.pauseMs));
        else if (!socket.destroyed && socket.writable) socket.write(step);
      }
      timer = setTimeout(() => finish(false), options.waitMs ?? 3_000);
    });
  });
}

/** Splits a byte stream into complete HTTP/1.1 responses (Content-Length or chunked bodies; none for 1xx, or with `bodiless`). */
export function parseResponses(data: Buffer, options: { bodiless?: boolean } = {}): RawResponse[] {
  const responses: RawResponse[] = [];
  let offset = 0;
  for (;;) {
    const headEnd = data.indexOf('\r\n\r\n', offset);
    if (headEnd === -1) return responses;
    const [statusLine = '', ...lines] = data.subarray(offset, headEnd).toString('latin1').split('\r\n');
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
    }
    let cursor = headEnd + 4;
    let body: Buffer;
    if (options.bodiless || (status >= 100 && status < 200)) {
      body = Buffer.alloc(0);
    } else if (headers['transfer-encoding']?.toLowerCase().includes('chunked')) {
      const parts: Buffer[] = [];
      for (;;) {
        const lineEnd = data.indexOf('\r\n', cursor);
        if (lineEnd === -1) return responses;
        const size = Number.parseInt(data.subarray(cursor, lineEnd).toString('latin1'), 16);
        if (Number.isNaN(size) || data.length < lineEnd + 2 + size + 2) return responses;
        parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
        cursor = lineEnd + 2 + size + 2;
        if (size === 0) break;
      }
      body = Buffer.concat(parts);
    } else {
      const length = Number(headers['content-length'] ?? 0);
      if (data.length < cursor + length) return responses;
      body = data.subarray(cursor, cursor + length);
      cursor += length;
    }
    responses.push({ status, headers, body: body.toString('utf8') });
    offset = cursor;
  }
}

/** A request as text, with CRLF line ends and the Host header; headers are written exactly as given, repeats included. */
export function httpRequest(method: string, target: string, headers: Array<[string, string]>, body?: string | Uint8Array): Uint8Array {
  const head = [`${method} ${target} HTTP/1.1`, 'Host: 127.0.0.1', ...headers.map(([name, value]) => `${name}: ${value}`), '', ''].join('\r\n');
  const bodyBytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : (body ?? new Uint8Array());
  return Buffer.concat([Buffer.from(head, 'latin1'), bodyBytes]);
}

/** A body in `Transfer-Encoding: chunked` framing, cut into chunks of `size` bytes. */
export function chunkedBody(data: string | Uint8Array, size = 1024): Uint8Array {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data);
  const parts: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += size) {
    const chunk = bytes.subarray(at, at + size);
    parts.push(Buffer.from(`${chunk.length.toString(16)}\r\n`, 'latin1'), chunk, Buffer.from('\r\n', 'latin1'));
  }
  parts.push(Buffer.from('0\r\n\r\n', 'latin1'));
  return Buffer.concat(parts);
}
