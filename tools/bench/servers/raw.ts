// The practical limit of Node on this machine: node:http and nothing else.
import { createServer, type ServerResponse } from 'node:http';
import { CHALLENGE, checkListRequest, listPage, MAX_BODY_BYTES, problem, readPeerConfig, type ListRequest, type ProblemName } from './peer.js';

const config = readPeerConfig();

function sendProblem(res: ServerResponse, name: ProblemName, status: number, title: string, detail: string, headers: Record<string, string> = {}): void {
  const body = problem(name, status, title, detail);
  res.writeHead(status, { 'content-type': 'application/problem+json', 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

function answer(res: ServerResponse, raw: string): void {
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    sendProblem(res, 'malformed-request', 400, 'Malformed request', 'The request body is not valid JSON.');
    return;
  }
  const violation = checkListRequest(body);
  if (violation !== undefined) {
    sendProblem(res, 'validation-failed', 422, 'Validation failed', violation);
    return;
  }
  const json = JSON.stringify(listPage(body as ListRequest));
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) });
  res.end(json);
}

const server = createServer((req, res) => {
  if (req.url !== '/' || req.method !== 'POST') {
    sendProblem(res, 'not-found', 404, 'Not found', 'No such operation.');
    return;
  }
  if (req.headers.authorization !== config.expectedAuthorization) {
    sendProblem(res, 'unauthorized', 401, 'Unauthorized', 'Send a valid API key.', { 'www-authenticate': CHALLENGE });
    return;
  }
  if (!req.headers['content-type']?.startsWith('application/json')) {
    sendProblem(res, 'unsupported-media-type', 415, 'Unsupported media type', 'Send the body as application/json.');
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size <= MAX_BODY_BYTES) chunks.push(chunk);
  });
  req.on('end', () => {
    if (size > MAX_BODY_BYTES) sendProblem(res, 'content-too-large', 413, 'Content too large', `The request body exceeds ${MAX_BODY_BYTES} bytes.`);
    else answer(res, Buffer.concat(chunks).toString('utf8'));
  });
});

server.listen(config.port, config.host);
