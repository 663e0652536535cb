/**
 * The mock's edge: a small proxy in front of Prism that passes every request on
 * and hands Prism's answer back, except where Prism answers in its own words
 * rather than the contract's. Prism stays the engine (routing, validation,
 * examples, dynamic bodies); this only rewrites its errors:
 *
 * - a `422` becomes the contract's `validation-failed` problem listing the real
 *   violations, read from Prism's `sl-violations` header (Prism's body is only the
 *   spec's first 422 example, whatever was wrong);
 * - Prism's own problems (`https://stoplight.io/prism/errors#...`, unknown path,
 *   method not allowed, ...) and its `{"error":{"code":"invalid_json"}}` 400 become
 *   the contract's problem for that status, a 405 with its `Allow` header;
 * - every answer carries `X-Request-Id`, as the server's do (a served example's
 *   `requestId` when it has one, so the header and the body agree);
 * - for a contract whose session is a cookie (the account API), a write a browser says came from another
 *   site is refused with the server's `403` (`src/account/same-origin.ts`), and Prism's CORS headers,
 *   which the server does not send there, are dropped;
 * - Prism's `sl-violations` about its own answer are dropped (those about the request stay), and a
 *   request's `Prefer` is echoed as `Preference-Applied` (RFC 7240), so a client can tell the mock;
 * - a body sent to an operation that takes none (and documents a `400` problem) is refused with that `400`, as the
 *   server refuses it, unless Prism refused the request for its credentials or its quota (Prism would answer it
 *   by the body's content type, or ignore it);
 * - a problem the edge writes for an operation carries the headers the spec declares
 *   on that answer, with their examples, as Prism sends them with the answers it takes
 *   from the spec (the `RateLimit-*` of a 400, say);
 * - with a stateful mock (`stateful/`), a `2xx` Prism gave an operation whose effect the mock inferred is
 *   replaced by the answer about what the caller made (Prism still validates first, so every problem is
 *   as above), and `POST <base>/__mock/reset` forgets everything the callers made.
 */
import { randomUUID } from 'node:crypto';
import { type Context, Hono } from 'hono';
import { checkSameOrigin } from '../account/same-origin.js';
import type { OperationContract } from '../contract/operations.js';
import { deref, isObject, type OpenApiDocument } from '../contract/spec.js';
import { ApiError, PROBLEM_TYPES, type ProblemBody, type ProblemType, problemBody } from '../http/problems.js';
import { headersAnnounceBody, UNEXPECTED_BODY_DETAIL } from '../http/read-input.js';
import { type ProblemBounds, toRoutePath } from '../http/request-contract.js';
import { edgeContract } from './edge-contract.js';
import { headerExamples, problemTypesByStatus } from './spec-answers.js';
import type { StatefulMock, StatefulRequest } from './stateful/stateful-mock.js';
import { type ParameterName, readPrismViolations, toContractViolations } from './violations.js';

export interface MockEdgeOptions {
  /** Where Prism listens, e.g. `http://127.0.0.1:41234`. */
  prismUrl: string;
  /** The document Prism serves. */
  spec: OpenApiDocument;
  /** Where the edge mounts the API, e.g. `/api` for the account API beside the pages; removed before Prism sees the path. */
  basePath?: string;
  /** Remember what each caller makes (`stateful/stateful-mock.ts`); Prism's examples only when absent. */
  stateful?: StatefulMock;
}

/** The path of the stateful mock's reset, under the edge's base path. */
export const RESET_PATH = '/__mock/reset';

/** What a translation needs to know about the request Prism answered. */
export interface AnsweredRequest {
  method: string;
  /** The path as asked (the problem's `instance`). */
  path: string;
  /** The methods the spec has for the matched path, when the path matched one. */
  allow?: readonly string[];
  /** The example of each header the spec declares on this operation's answer with a status; none when no operation matched. */
  declaredHeaders?: (status: number) => Readonly<Record<string, string>>;
  /** The request's `Prefer` header (RFC 7240), which Prism honours: echoed as `Preference-Applied`. */
  prefer?: string;
  /** The API serves its own pages only (a cookie API): the server sends no CORS headers there, so Prism's are dropped. */
  sameOriginOnly?: boolean;
  /** Whether the operation documents this status as `application/problem+json` (for a spec without the contract's problem types). */
  documentsProblem?: (status: number) => boolean;
}

/** What the edge knows of the contract: its problem types by status, and the bounds of a problem's fields. */
export interface ContractFacts {
  problemTypes: ReadonlyMap<number, ProblemType>;
  bounds: ProblemBounds;
  /** The spec's spelling of a path or query parameter Prism names in lower case. */
  parameterName?: ParameterName;
}

const PRISM_PROBLEM = 'https://stoplight.io/prism/errors#';
const HOP_BY_HOP = ['connection', 'keep-alive', 'transfer-encoding', 'content-length'];

/** The edge as a Hono app: every path of the spec (and any other, which Prism answers 404) is passed on to Prism. */
export function createMockEdge(options: MockEdgeOptions): Hono {
  const prismUrl = options.prismUrl.replace(/\/+$/, '');
  const basePath = (options.basePath ?? '').replace(/\/+$/, '');
  const contract = edgeContract(options.spec);
  const facts: ContractFacts = {
    problemTypes: problemTypesByStatus(options.spec),
    bounds: contract.problemBounds,
    parameterName: parameterNames(contract.operations),
  };
  const app = new Hono();

  const examples = headerExamples(options.spec);
  const problemStatuses = new Set(
    contract.operations.flatMap((operation) =>
      Object.entries(operation.responses)
        .filter(([, response]) => Object.keys(response.content).some((type) => /problem\+json/i.test(type)))
        .map(([status]) => `${operation.method} ${operation.path} ${status}`),
    ),
  );
  const cookieApi = usesCookieSession(options.spec);
  // Operations that take no body and document a 400 problem: a body sent to one is refused as the server refuses it.
  const bodyLess = new Set(
    contract.operations
      .filter((operation) => operation.requestBody === undefined && problemStatuses.has(`${operation.method} ${operation.path} 400`))
      .map((operation) => `${operation.method} ${operation.path}`),
  );
  const forward = async (c: Context, allow: readonly string[] | undefined, specPath?: string): Promise<Response> => {
    const refused = cookieApi ? crossSiteRefusal(c, facts, specPath === undefined ? {} : (examples.get(`${c.req.method} ${specPath} 403`) ?? {})) : undefined;
    if (refused) return refused;
    const url = new URL(c.req.url);
    const apiPath = url.pathname.slice(basePath.length) || '/';
    const headers = new Headers(c.req.raw.headers);
    headers.delete('host');
    const body = c.req.method === 'GET' || c.req.method === 'HEAD' ? undefined : await c.req.arrayBuffer();
    const asked: StatefulRequest | undefined =
      options.stateful && specPath !== undefined
        ? { method: c.req.method, specPath, apiPath, instance: c.req.path, query: url.searchParams, headers: c.req.raw.headers, ...(body && { body }) }
        : undefined;
    const ended = asked && options.stateful?.refuse(asked);
    if (ended) return ended;
    const prismAnswer = await fetch(`${prismUrl}${apiPath}${url.search}`, {
      method: c.req.method,
      headers,
      redirect: 'manual',
      ...(body && { body }),
    });
    // The server reads the input after the security and the quotas: a body is refused unless Prism refused the request
    // for those (401, 403, 429), and before the stateful mock does what the operation does.
    if (![401, 403, 429].includes(prismAnswer.status) && specPath !== undefined && bodyLess.has(`${c.req.method} ${specPath}`)) {
      const bodyRefused = unexpectedBodyRefusal(c, facts, examples.get(`${c.req.method} ${specPath} 400`) ?? {});
      if (bodyRefused) {
        await prismAnswer.arrayBuffer();
        return bodyRefused;
      }
    }
    const answer = (asked && (await options.stateful?.answer(asked, prismAnswer))) || prismAnswer;
    const declaredHeaders = specPath === undefined ? undefined : (status: number) => examples.get(`${c.req.method} ${specPath} ${status}`) ?? {};
    const documentsProblem = specPath === undefined ? undefined : (status: number) => problemStatuses.has(`${c.req.method} ${specPath} ${status}`);
    const prefer = c.req.header('prefer');
    return translateAnswer(
      answer,
      {
        method: c.req.method,
        path: c.req.path,
        ...(allow && { allow }),
        ...(declaredHeaders && { declaredHeaders }),
        ...(documentsProblem && { documentsProblem }),
        ...(prefer && { prefer }),
        ...(cookieApi && { sameOriginOnly: true }),
      },
      facts,
    );
  };

  const { stateful } = options;
  if (stateful)
    app.post(`${basePath}${RESET_PATH}`, (c) => {
      stateful.reset();
      return c.body(null, 204, { 'x-request-id': randomUUID() });
    });
  for (const [specPath, methods] of contract.methodsByPath) {
    const route = toRoutePath(specPath);
    const paths = route !== '/' ? [basePath + route] : basePath ? [basePath, `${basePath}/`] : ['/'];
    for (const path of paths) app.all(path, (c) => forward(c, methods, specPath));
  }
  app.all('*', (c) => forward(c, undefined));
  return app;
}

/** Whether the contract's sessions travel in a cookie (the account API): its writes must then come from its own pages. */
function usesCookieSession(spec: OpenApiDocument): boolean {
  const schemes = isObject(spec.components['securitySchemes']) ? spec.components['securitySchemes'] : {};
  return Object.values(schemes).some((scheme) => isObject(scheme) && deref(spec, scheme)['in'] === 'cookie');
}

/**
 * The server's refusal of a write a browser says came from another site (`checkSameOrigin`, with the
 * loopback Host as the origin, as in local development), as its `403` problem; undefined for any other request.
 */
function crossSiteRefusal(c: Context, facts: ContractFacts, headers: Readonly<Record<string, string>>): Response | undefined {
  try {
    checkSameOrigin(c, undefined);
    return undefined;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    const problem = problemBody(error.type, error.message, { instance: c.req.path, requestId: randomUUID() }, facts.bounds);
    return new Response(JSON.stringify(problem), {
      status: error.status,
      headers: { ...headers, 'content-type': 'application/problem+json', 'x-request-id': problem.requestId ?? randomUUID() },
    });
  }
}

/**
 * The server's refusal of a body sent to an operation that takes none (`readInput` in `src/http/read-input.ts`), as its
 * `400` problem; undefined when the request's headers announce no body. Prism ignores such a body.
 */
function unexpectedBodyRefusal(c: Context, facts: ContractFacts, headers: Readonly<Record<string, string>>): Response | undefined {
  if (!headersAnnounceBody(c.req.raw.headers)) return undefined;
  const problem = problemBody('urn:problem-type:malformed-request', UNEXPECTED_BODY_DETAIL, { instance: c.req.path, requestId: randomUUID() }, facts.bounds);
  return new Response(JSON.stringify(problem), {
    status: 400,
    headers: { ...headers, 'content-type': 'application/problem+json', 'x-request-id': problem.requestId ?? randomUUID() },
  });
}

/** Every path and query parameter of the spec by its lower-case name, so Prism's `keyid` is reported as the spec's `keyId`. */
export function parameterNames(operations: readonly OperationContract[]): ParameterName {
  const byPart = { path: new Map<string, string>(), query: new Map<string, string>() };
  for (const { parameters } of operations) {
    for (const parameter of parameters)
      if (parameter.in === 'path' || parameter.in === 'query') byPart[parameter.in].set(parameter.name.toLowerCase(), parameter.name);
  }
  return (part, reported) => byPart[part].get(reported.toLowerCase()) ?? reported;
}

/** Prism's answer as the client gets it from the edge: its own errors in the contract's words, `X-Request-Id` on all. */
export async function translateAnswer(answer: Response, request: AnsweredRequest, facts: ContractFacts): Promise<Response> {
  const headers = new Headers(answer.headers);
  for (const name of HOP_BY_HOP) headers.delete(name);
  withoutOwnAnswerViolations(headers);
  if (request.sameOriginOnly) for (const name of [...headers.keys()].filter((header) => header.startsWith('access-control-'))) headers.delete(name);
  // RFC 7240: say which preference was honoured, so a client can tell the mock (which honours
  // `Prefer`) from a server (which ignores it, as the RFC asks of a preference it does not support).
  if (request.prefer) headers.set('preference-applied', request.prefer);
  const text = await answer.text();
  const problem = contractProblem(answer.status, headers, text, request, facts) ?? plainProblem(answer.status, headers, text, request, facts);
  if (problem) {
    for (const [name, value] of Object.entries(request.declaredHeaders?.(answer.status) ?? {})) if (!headers.has(name)) headers.set(name, value);
    headers.set('content-type', 'application/problem+json');
    headers.set('x-request-id', problem.requestId ?? randomUUID());
    if (answer.status === 405 && request.allow) headers.set('allow', request.allow.join(', '));
    return new Response(JSON.stringify(problem), { status: answer.status, headers });
  }
  headers.set('x-request-id', exampleRequestId(headers, text) ?? randomUUID());
  return new Response(answer.status === 204 || answer.status === 304 || request.method === 'HEAD' ? null : text, { status: answer.status, headers });
}

/**
 * Prism checks its own answer against the spec and reports what it finds in `sl-violations` beside the
 * request's violations. Those about the answer are about Prism (it reads the example `RateLimit-Remaining: 0`
 * of a 429 as missing), not about the request a client sent, and the server sends nothing like them; they
 * are dropped, the request's are kept.
 */
function withoutOwnAnswerViolations(headers: Headers): void {
  const header = headers.get('sl-violations');
  if (header === null) return;
  const aboutRequest = readPrismViolations(header).filter((violation) => violation.location[0] !== 'response');
  if (aboutRequest.length > 0) headers.set('sl-violations', JSON.stringify(aboutRequest));
  else headers.delete('sl-violations');
}

/** The contract's problem for an answer Prism wrote in its own words; undefined for an answer taken from the spec. */
function contractProblem(status: number, headers: Headers, text: string, request: AnsweredRequest, facts: ContractFacts): ProblemBody | undefined {
  const type = facts.problemTypes.get(status);
  if (!type) return undefined;
  const { bounds } = facts;
  const place = { instance: request.path, requestId: randomUUID() };
  if (status === 422) {
    const violations = toContractViolations(readPrismViolations(headers.get('sl-violations')), facts.parameterName);
    if (violations.length === 0) return undefined;
    const places = violations.length === 1 ? '1 place' : `${violations.length} places`;
    return problemBody(type, `The request breaks the contract in ${places}.`, place, bounds, violations);
  }
  const isJson = /json/i.test(headers.get('content-type') ?? '');
  const prismOwn = isJson && prismProblemType(text)?.startsWith(PRISM_PROBLEM);
  // Prism parses the body before it consults the spec, and refuses bad JSON with its own `{"error":{"code":"invalid_json"}}`.
  const prismBadJson = status === 400 && !/problem\+json/i.test(headers.get('content-type') ?? '');
  if (!prismOwn && !prismBadJson) return undefined;
  return problemBody(type, OWN_DETAILS[status]?.(request) ?? `${PROBLEM_TYPES[type].title}.`, place, bounds);
}

/**
 * For a spec without the contract's problem types (another team's), Prism's own problem or bad-JSON answer as a
 * plain RFC 9457 problem (`about:blank`), where the operation documents that status as `application/problem+json`.
 */
function plainProblem(status: number, headers: Headers, text: string, request: AnsweredRequest, facts: ContractFacts): PlainProblem | undefined {
  if (facts.problemTypes.has(status) || !request.documentsProblem?.(status) || !writtenByPrism(status, headers, text)) return undefined;
  const detail = OWN_DETAILS[status]?.(request) ?? `Prism answered ${status}.`;
  // RFC 9457's `about:blank`: the title is the status's reason phrase, and no type of the contract's is claimed.
  return { type: 'about:blank', title: REASONS[status] ?? 'Error', status, detail, instance: request.path, requestId: randomUUID() };
}

/** A problem whose type is not one of the contract's `ProblemType`s. */
type PlainProblem = Omit<ProblemBody, 'type'> & { type: string };

const REASONS: Record<number, string> = { 400: 'Bad Request', 404: 'Not Found', 405: 'Method Not Allowed' };

/** Whether an answer is Prism's own problem (`https://stoplight.io/prism/errors#...`) or its bad-JSON refusal, not one taken from the spec. */
function writtenByPrism(status: number, headers: Headers, text: string): boolean {
  const isJson = /json/i.test(headers.get('content-type') ?? '');
  const prismOwn = isJson && (prismProblemType(text)?.startsWith(PRISM_PROBLEM) ?? false);
  return prismOwn || (status === 400 && !/problem\+json/i.test(headers.get('content-type') ?? ''));
}

/** The server's wording for the problems Prism writes itself. */
const OWN_DETAILS: Record<number, (request: AnsweredRequest) => string> = {
  400: () => 'The request body is not valid JSON.',
  404: () => 'No operation of this API has this path.',
  405: (request) => `${request.method} is not allowed here; use ${request.allow?.join(', ') ?? 'another method'}.`,
};

function prismProblemType(text: string): string | undefined {
  return stringField(text, 'type');
}

/** A served problem example's `requestId`, so `X-Request-Id` says the same as the body. */
function exampleRequestId(headers: Headers, text: string): string | undefined {
  return /problem\+json/i.test(headers.get('content-type') ?? '') ? stringField(text, 'requestId') : undefined;
}

/** A string field of a JSON object body; undefined when the body is no such thing. */
function stringField(text: string, name: string): string | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  const value = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;
  return typeof value === 'string' ? value : undefined;
}
