import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import type { FromSchema } from 'json-schema-to-ts';
import type { Contract } from './project.js';
import { checkSchema, describeErrors } from './schemas.js';
import { loadSpec, type OpenApiDocument, specFile } from './spec.js';

/** A count or a length of time: a whole number, at least 1. */
const count = (description: string) => ({ type: 'integer', minimum: 1, description }) as const;

/** The limits every contract states: the body size, the timeouts, the request rate and the budgets for failed authentication. */
const commonProperties = {
  maxBodyBytes: count('Largest request body the server reads, in bytes; a larger one is answered 413 before it is parsed.'),
  headersTimeoutSeconds: count('Seconds a client has to send its request headers; a slower one is cut with 408.'),
  requestTimeoutSeconds: count('Seconds a client has to send its whole request; a slower one is cut with 408. At least headersTimeoutSeconds.'),
  rateLimit: {
    type: 'object',
    description:
      'Requests one client may send per window: per API key on the public API; on the account API per live session, or per client address for a request without one. Over it: 429.',
    additionalProperties: false,
    required: ['requests', 'windowSeconds'],
    properties: {
      requests: count('Requests allowed per window.'),
      windowSeconds: count('Length of the fixed window, in seconds.'),
    },
  },
  failedAuthentication: {
    type: 'object',
    description:
      'Requests whose credentials fail (a missing, malformed, unknown, expired or revoked key; no live session under the session cookie), ' +
      'counted per client address. Over the budget such a request is answered 429, not 401; a valid credential is always served.',
    additionalProperties: false,
    required: ['perAddress', 'windowSeconds'],
    properties: {
      perAddress: count('Failed requests allowed from one client address per window.'),
      windowSeconds: count('Length of the fixed window, in seconds.'),
    },
  },
} as const;

/** The account API's own limits: sign-in attempts, sign-ups, the password rule, sessions and keys. */
const accountProperties = {
  signIn: {
    type: 'object',
    description:
      'Sign-in attempts, each taken before its password is checked and given back when it signs in, so guesses sent at once count one by one. ' +
      'A browser holding the device cookie of the account it signs in to is counted on its own (failuresPerDevice), never in the account’s ' +
      'or its address’s count. Past a count’s free attempts, each further one waits backoffSeconds after the latest, doubled for each, at most ' +
      'maxBackoffSeconds; until then sign-in answers 429 with Retry-After before checking the password. Sign-ins that succeed are limited ' +
      'to a rate per account and per client (successesPer…, successIntervalSeconds), so no one keeps the password thread busy with right passwords.',
    additionalProperties: false,
    required: [
      'failuresPerAccount',
      'failuresPerClient',
      'failuresPerDevice',
      'backoffSeconds',
      'maxBackoffSeconds',
      'windowSeconds',
      'deviceSeconds',
      'successesPerAccount',
      'successesPerClient',
      'successIntervalSeconds',
    ],
    properties: {
      failuresPerAccount: count('Free attempts at one account name from browsers without its device cookie, all together.'),
      failuresPerClient: count('Free attempts from one client address (without the device cookie of the account tried), over all accounts.'),
      failuresPerDevice: count('Free attempts from one browser holding the account’s device cookie; nobody else’s attempts touch this count.'),
      backoffSeconds: count('The wait after the first attempt past the free ones, doubled for each further attempt.'),
      maxBackoffSeconds: count('The longest wait, in seconds.'),
      windowSeconds: count('A count is forgotten this many seconds after its latest attempt.'),
      deviceSeconds: count('How long a device cookie lasts (its Max-Age), in seconds: a browser that signed in is known this long.'),
      successesPerAccount: count(
        'Sign-ins that succeed, per account name from any browser, allowed at once; then one each successIntervalSeconds (a rate, not a lockout: 429 with Retry-After for the rest of the interval).',
      ),
      successesPerClient: count('Sign-ins that succeed from one client address, over all accounts, allowed at once; then one each successIntervalSeconds.'),
      successIntervalSeconds: count(
        'Past the successes allowed at once, one more each this many seconds; a count is forgotten once that many intervals pass without one.',
      ),
    },
  },
  signUp: {
    type: 'object',
    description:
      'Sign-ups per client address, each taken before the name is looked up: one that makes an account and one that meets a taken name both ' +
      'count, so the "name is taken" answer is no free oracle. Past perClient, sign-up answers 429 with Retry-After until windowSeconds after the latest.',
    additionalProperties: false,
    required: ['perClient', 'windowSeconds'],
    properties: {
      perClient: count('Sign-ups (and attempts at a taken name) allowed from one client address before it waits.'),
      windowSeconds: count('A client’s count is forgotten this many seconds after its latest sign-up; past perClient, it waits that long.'),
    },
  },
  password: {
    type: 'object',
    description:
      'How hard a new password must be to guess, as zxcvbn-ts estimates it (lists of common and breached passwords, words, names, keyboard ' +
      'patterns, repeats, sequences, dates, the user name and the service’s name). Sign-up refuses an easier one with 422, naming the rule it broke.',
    additionalProperties: false,
    required: ['minGuessesLog10'],
    properties: {
      minGuessesLog10: count('The fewest guesses a new password may take, as a power of ten (8: 10^8 guesses, zxcvbn-ts’s score 3 of 4).'),
    },
  },
  session: {
    type: 'object',
    description: 'How long a session lasts.',
    additionalProperties: false,
    required: ['idleSeconds', 'absoluteSeconds'],
    properties: {
      idleSeconds: count('A session unused for this many seconds ends.'),
      absoluteSeconds: count('A session ends this many seconds after it started, however much it is used; also the cookie’s Max-Age.'),
    },
  },
  keys: {
    type: 'object',
    description: 'API keys per user.',
    additionalProperties: false,
    required: ['activePerUser'],
    properties: {
      activePerUser: count('Keys that are neither revoked nor expired, per user; creating one more answers 409.'),
    },
  },
} as const;

const commonRequired = ['maxBodyBytes', 'headersTimeoutSeconds', 'requestTimeoutSeconds', 'rateLimit', 'failedAuthentication'] as const;
const accountRequired = ['signIn', 'signUp', 'password', 'session', 'keys'] as const;

const closedObject = { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', additionalProperties: false } as const;

/**
 * The JSON Schema of a spec's top-level `x-limits`, the limits the server reads from the contract (ADR 0003):
 * the common limits, and the account API's five groups, all or none. Each contract is held to its own
 * variant ({@link LIMITS_SCHEMAS}): the public API may not have the account groups, the account API must.
 */
export const limitsSchema = {
  ...closedObject,
  title: 'x-limits',
  description: 'The limits a contract states and the server enforces (an operator may override some: src/config/limits.ts).',
  required: commonRequired,
  properties: { ...commonProperties, ...accountProperties },
  dependentRequired: {
    signIn: ['signUp', 'password', 'session', 'keys'],
    signUp: ['signIn', 'password', 'session', 'keys'],
    password: ['signIn', 'signUp', 'session', 'keys'],
    session: ['signIn', 'signUp', 'password', 'keys'],
    keys: ['signIn', 'signUp', 'password', 'session'],
  },
} as const;

/** Each contract's variant of {@link limitsSchema}, by its name in `redocly.yaml`. */
export const LIMITS_SCHEMAS = {
  main: {
    ...closedObject,
    title: 'x-limits of the public API',
    description: 'The limits of the public API: the common ones alone.',
    required: commonRequired,
    properties: commonProperties,
  },
  account: {
    ...closedObject,
    title: 'x-limits of the account API',
    description: 'The limits of the account API: the common ones, and its sign-in, session and key limits.',
    required: [...commonRequired, ...accountRequired],
    properties: { ...commonProperties, ...accountProperties },
  },
} as const;

/** `x-limits` of either contract. */
export type SpecLimits = FromSchema<typeof limitsSchema>;
/** `x-limits` of the account API: the common limits and its own five groups. */
export type AccountSpecLimits = FromSchema<(typeof LIMITS_SCHEMAS)['account']>;
/** The limits the app enforces on each request: the body size, the request rate, failed authentication. */
export type Limits = Pick<SpecLimits, 'maxBodyBytes' | 'rateLimit' | 'failedAuthentication'>;
/** The limits the Node entry applies to connections, outside the app. */
export type ConnectionLimits = Pick<SpecLimits, 'headersTimeoutSeconds' | 'requestTimeoutSeconds'>;
/** The account API's own limits. */
export type AccountLimits = Pick<AccountSpecLimits, (typeof accountRequired)[number]>;

/** Where the schema is written, for messages. */
const SCHEMA_FILE = 'src/contract/limits.ts';

// Held to the meta-schema by `checkSchema`'s shared Ajv, not by one more compile of the meta-schema here.
const ajv = new Ajv2020({ allErrors: true, strict: true, verbose: true, validateSchema: false });
const validators = new Map<object, ValidateFunction>();

function validatorFor(schema: object): ValidateFunction {
  let validate = validators.get(schema);
  if (!validate) {
    checkSchema(schema);
    validate = ajv.compile(schema);
    validators.set(schema, validate);
  }
  return validate;
}

/**
 * Reads a spec's `x-limits`, checked against its schema ({@link limitsSchema}, or the variant of the
 * contract named): the one reader of the extension, used when the server compiles a contract and by
 * `npm run check:contracts`.
 *
 * @param spec the parsed spec (`loadSpec`), whose file the message names when it knows it.
 * @param contract the contract's name in `redocly.yaml` (`main`, `account`); by default either variant is accepted.
 * @throws Error naming each wrong field: `openapi/openapi.yaml: x-limits.rateLimit.requests must be an integer >= 1, found -5`.
 * @example
 * const { signIn, session, keys } = readLimits(loadSpec(accountSpecPath), 'account');
 */
export function readLimits(spec: OpenApiDocument, contract: 'account'): AccountSpecLimits;
export function readLimits(spec: OpenApiDocument, contract?: string): SpecLimits;
export function readLimits(spec: OpenApiDocument, contract?: string): SpecLimits {
  const schema = contract !== undefined && Object.hasOwn(LIMITS_SCHEMAS, contract) ? LIMITS_SCHEMAS[contract as keyof typeof LIMITS_SCHEMAS] : limitsSchema;
  const file = specFile(spec);
  const where = file ? `${file}: ` : "the spec's ";
  const value = spec['x-limits'];
  if (value === undefined) throw new Error(`${where}x-limits is missing: the server reads its limits from it (its schema is in ${SCHEMA_FILE})`);
  const validate = validatorFor(schema);
  const problems = validate(value) ? crossFieldProblems(value as SpecLimits) : (validate.errors ?? []).flatMap(describe);
  if (problems.length > 0) throw new Error(`${where}${[...new Set(problems)].join('; ')} (the schema of x-limits is in ${SCHEMA_FILE})`);
  return value as SpecLimits;
}

/**
 * `npm run check:contracts`'s check of one contract's `x-limits` against the contract's variant of the schema.
 *
 * @param contract the contract as `redocly.yaml` declares it (`readContracts`): its name and its spec.
 */
export function checkLimits(contract: Pick<Contract, 'name' | 'spec'>): { ok: boolean; message: string } {
  const spec = loadSpec(contract.spec);
  try {
    readLimits(spec, contract.name);
    return { ok: true, message: `x-limits of ${specFile(spec)} matches its schema` };
  } catch (error) {
    return { ok: false, message: `${(error as Error).message}. Fix the field in the spec, or the schema if the limit is new.` };
  }
}

/** What JSON Schema cannot say: Node refuses a server whose headers may take longer than the whole request. */
function crossFieldProblems(limits: SpecLimits): string[] {
  const { headersTimeoutSeconds: headers, requestTimeoutSeconds: request } = limits;
  return headers > request ? [`x-limits.headersTimeoutSeconds (${headers}) must be at most x-limits.requestTimeoutSeconds (${request})`] : [];
}

/** One Ajv error as `x-limits.<field> <what is wrong>`; an integer's type and bound are said together. */
function describe(error: ErrorObject): string[] {
  const parent = error.parentSchema as { type?: string; minimum?: number } | undefined;
  if ((error.keyword === 'type' || error.keyword === 'minimum') && parent?.type === 'integer') {
    return [`${field(error.instancePath)} must be an integer >= ${parent.minimum}, found ${JSON.stringify(error.data)}`];
  }
  if (error.keyword === 'dependentRequired') {
    return [`${field(`/${error.params['missingProperty']}`)} is required: the account API's groups signIn, signUp, password, session and keys come together`];
  }
  if (error.keyword === 'type') return [`${field(error.instancePath)} must be an object, found ${JSON.stringify(error.data)}`];
  return describeErrors([error]).map((violation) => `${field(violation.pointer)} ${violation.detail}`);
}

/** A JSON pointer into `x-limits` as the field's dotted name: `/rateLimit/requests` is `x-limits.rateLimit.requests`. */
function field(pointer: string): string {
  const segments = pointer.split('/').slice(1);
  return ['x-limits', ...segments.map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'))].join('.');
}
