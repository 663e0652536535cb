// Fastify with the spec's ListRequest as its body schema and a bearer check in a hook.
import Fastify from 'fastify';
import { inlineSchema } from '../lib/spec.js';
import { CHALLENGE, listPage, MAX_BODY_BYTES, problem, readPeerConfig, type ListRequest } from './peer.js';

const config = readPeerConfig();

const app = Fastify({
  logger: false,
  bodyLimit: MAX_BODY_BYTES,
  // Fastify's defaults strip unknown fields and coerce types; the contract rejects both.
  ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: true } },
});

// Returning the reply from an async hook ends the request there (Fastify's documented early answer).
app.addHook('onRequest', async (request, reply) => {
  if (request.headers.authorization !== config.expectedAuthorization) {
    return reply
      .code(401)
      .header('www-authenticate', CHALLENGE)
      .type('application/problem+json')
      .send(problem('unauthorized', 401, 'Unauthorized', 'Send a valid API key.'));
  }
});

app.post<{ Body: ListRequest }>('/', { schema: { body: inlineSchema('ListRequest') as object } }, async (request) => listPage(request.body));

await app.listen({ port: config.port, host: config.host });
