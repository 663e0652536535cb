// Express with express-openapi-validator on the project's openapi.yaml: the classic contract-first stack.
import express, { type NextFunction, type Request, type Response } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { specPath } from '../lib/spec.js';
import { listPage, MAX_BODY_BYTES, readPeerConfig, type ListRequest } from './peer.js';

const config = readPeerConfig();
const app = express();

app.use(express.json({ limit: MAX_BODY_BYTES }));
app.use(
  OpenApiValidator.middleware({
    apiSpec: specPath,
    validateRequests: true,
    validateResponses: false,
    validateSecurity: { handlers: { bearerAuth: (req) => req.headers.authorization === config.expectedAuthorization } },
  }),
);

app.post('/', (req: Request<unknown, unknown, ListRequest>, res: Response) => {
  res.json(listPage(req.body));
});

app.use((error: { status?: number; message?: string }, _req: Request, res: Response, _next: NextFunction) => {
  const status = error.status ?? 500;
  res
    .status(status)
    .type('application/problem+json')
    .json({ type: 'about:blank', title: 'Error', status, detail: error.message ?? 'failed' });
});

app.listen(config.port, config.host);
