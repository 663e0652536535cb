import { IncomingMessage } from 'node:http';
import { ApiError } from './problems.js';

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * True for `application/json`, with at most a `charset=utf-8` parameter
 * (any case, optional quotes). Other charsets are refused: JSON is UTF-8 (RFC 8259).
 */
export function isJsonContentType(header: string | undefined, mediaTypes: readonly string[]): boolean {
  if (!header) return false;
  // The usual header, exactly a media type and nothing else, needs no parsing.
  if (mediaTypes.includes(header)) return true;
  const [type = '', ...parameters] = header.split(';');
  if (!mediaTypes.includes(type.trim().toLowerCase())) return false;
  return parameters.every((parameter) => {
    const [name = '', value = ''] = parameter.split('=');
    return name.trim().toLowerCase() === 'charset' && value.trim().replaceAll('"', '').toLowerCase() === 'utf-8';
  });
}

/**
 * Where a body is read from: Node's request when the server runs on Node (the bytes as Node
 * received them), else the web `Request` (tests through `app.request()`, other runtimes).
 */
export type BodySource = IncomingMessage | Request;

/**
 * The bytes of a request body of at most `maxBytes`. The size is checked first from `Content-Length`,
 * then while reading, so a chunked body is cut off as soon as it passes the limit.
 *
 * The usual body, which Node's parser has already buffered whole when the app reads it, comes back at
 * once, not as a promise, so the usual request is read, parsed and validated without a promise hop;
 * a body still arriving (chunked, or slower than its headers) is awaited.
 */
export function readBody(source: BodySource, maxBytes: number): Uint8Array | Promise<Uint8Array> {
  let reading: Promise<Uint8Array>;
  if (source instanceof IncomingMessage) {
    const buffered = bufferedNodeBody(source, maxBytes);
    if (buffered) return buffered;
    // Node's parser pushes a body that came in the same packet as its headers only once the request event's
    // handlers have returned, and the checks before this one no longer wait: one microtask later it is there,
    // cheaper than the listeners of reading it as it arrives.
    reading = Promise.resolve().then(() => bufferedNodeBody(source, maxBytes) ?? readNodeBody(source, maxBytes));
  } else {
    reading = readWebBody(source, maxBytes);
  }
  return reading.catch((error: unknown) => {
    if (error instanceof ApiError) throw error;
    // The client went away, or a server timeout cut it off, mid-body: the client's doing, not a 500 to log as a server fault.
    throw new ApiError('urn:problem-type:malformed-request', 'The request body ended before it was complete.');
  });
}

/** Parses a body as a JSON object; with `optional`, an empty body is no body (`undefined`) rather than a 400. */
export function parseJsonObject(bytes: Uint8Array): Record<string, unknown>;
export function parseJsonObject(bytes: Uint8Array, options: { optional: boolean }): Record<string, unknown> | undefined;
export function parseJsonObject(bytes: Uint8Array, options: { optional?: boolean } = {}): Record<string, unknown> | undefined {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new ApiError('urn:problem-type:malformed-request', 'The request body is not valid UTF-8.');
  }
  if (text.trim() === '') {
    if (options.optional && text === '') return undefined;
    throw new ApiError('urn:problem-type:malformed-request', 'The request body is empty; send a JSON object such as {}.');
  }
  let value: unknown;
  try {
    // Duplicate keys: the last one wins, as in JSON.parse and most parsers (RFC 8259 leaves it open).
    // `__proto__` becomes an own property, never the prototype, and the schema then rejects it as unknown.
    value = JSON.parse(text);
  } catch {
    // The parser's own message quotes the body back (and its wording changes between Node versions): say only what is wrong.
    throw new ApiError('urn:problem-type:malformed-request', 'The request body is not valid JSON.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
    throw new ApiError('urn:problem-type:malformed-request', `The request body must be a JSON object, not ${kind}.`);
  }
  return value as Record<string, unknown>;
}

/**
 * The body Node's parser has already buffered whole, taken in one read with no listeners; undefined when
 * it has not all arrived (or has no declared length). A declared length over `maxBytes` is refused here.
 */
function bufferedNodeBody(incoming: IncomingMessage, maxBytes: number): Uint8Array | undefined {
  // Node's parser holds a body to its Content-Length (it never buffers more), so a declared length says it all.
  const declared = incoming.headers['content-length'];
  if (declared === undefined) return undefined;
  const length = Number(declared);
  if (length > maxBytes) throw tooLarge(maxBytes);
  if (incoming.readableDidRead || incoming.readableLength !== length) return undefined;
  return length === 0 ? EMPTY : (incoming.read() as Buffer);
}

/**
 * The body from Node's request as it arrives, as the Buffers Node received (a chunked body, or one
 * not all there yet). Reading it through the web `Request` (`arrayBuffer()`) copies it into a fresh
 * ArrayBuffer, which cost more than parsing it.
 */
function readNodeBody(incoming: IncomingMessage, maxBytes: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const settle = (error?: Error) => {
      incoming.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
      if (error) reject(error);
      else resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, total));
    };
    const onData = (chunk: Buffer) => {
      total += chunk.byteLength;
      if (total <= maxBytes) return void chunks.push(chunk);
      settle(tooLarge(maxBytes));
      discardRest(incoming);
    };
    const onEnd = () => settle();
    const onError = (error: Error) => settle(error);
    const onClose = () => settle(new Error('the connection closed before the body ended'));
    incoming.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}

/** How long, and how much, the rest of a body cut off over the limit is read and thrown away before the connection is closed. */
const DISCARD_MS = 500;
const DISCARD_BYTES = 64 * 1024 * 1024;

/**
 * The rest of a body cut off over the size limit, read and thrown away so the connection can carry the next
 * request (Node discards a body nobody started reading, not one read half-way); a client that goes on sending
 * past `DISCARD_BYTES` or `DISCARD_MS` has its connection closed, as @hono/node-server's own clean-up does.
 */
function discardRest(incoming: IncomingMessage): void {
  let discarded = 0;
  const close = () => {
    done();
    incoming.socket?.destroySoon();
  };
  const timer = setTimeout(close, DISCARD_MS);
  timer.unref();
  const onData = (chunk: Buffer) => {
    discarded += chunk.byteLength;
    if (discarded > DISCARD_BYTES) close();
  };
  const done = () => {
    clearTimeout(timer);
    incoming.off('data', onData).off('end', done).off('error', done);
  };
  incoming.on('data', onData).on('end', done).on('error', done);
  incoming.resume();
}

const EMPTY = new Uint8Array(0);

async function readWebBody(request: Request, maxBytes: number): Promise<Uint8Array> {
  const declared = request.headers.get('content-length');
  if (declared === null) return readAtMost(request, maxBytes);
  if (Number(declared) > maxBytes) throw tooLarge(maxBytes);
  // HTTP framing guarantees no more than Content-Length bytes arrive, so the whole body can be read in one go.
  const bytes = new Uint8Array(await request.arrayBuffer());
  // Node's parser holds a body to its Content-Length; another runtime might not.
  if (bytes.byteLength > maxBytes) throw tooLarge(maxBytes);
  return bytes;
}

async function readAtMost(request: Request, maxBytes: number): Promise<Uint8Array> {
  if (!request.body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

function tooLarge(maxBytes: number): ApiError {
  return new ApiError('urn:problem-type:content-too-large', `The request body exceeds ${maxBytes} bytes.`);
}
