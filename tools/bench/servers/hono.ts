// Bare Hono on @hono/node-server: the framework's routing and Context, the same checks by hand.
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { CHALLENGE, checkListRequest, listPage, MAX_BODY_BYTES, problem, readPeerConfig, type ListRequest, type ProblemName } from './peer.js';

const config = readPeerConfig();
const app = new Hono();

const problemResponse = (name: ProblemName, status: number, title: string, detail: string, headers: Record<string, string> = {}): Response =>
  new Response(problem(name, status, title, detail), { status, headers: { 'content-type': 'application/problem+json', ...headers } });

app.post('/', async (c) => {
  if (c.req.header('authorization') !== config.expectedAuthorization) {
    return problemResponse('unauthorized', 401, 'Unauthorized', 'Send a valid API key.', { 'www-authenticate': CHALLENGE });
  }
  if (!c.req.header('content-type')?.startsWith('application/json')) {
    return problemResponse('unsupported-media-type', 415, 'Unsupported media type', 'Send the body as application/json.');
  }
  const text = await c.req.text();
  if (Buffer.byteLength(text) > MAX_BODY_BYTES)
    return problemResponse('content-too-large', 413, 'Content too large', `The request body exceeds ${MAX_BODY_BYTES} bytes.`);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return problemResponse('malformed-request', 400, 'Malformed request', 'The request body is not valid JSON.');
  }
  const violation = checkListRequest(body);
  if (violation !== undefined) return problemResponse('validation-failed', 422, 'Validation failed', violation);
  return c.json(listPage(body as ListRequest));
});

serve({ fetch: app.fetch, port: config.port, hostname: config.host });
