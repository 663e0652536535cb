import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { UsageError } from '../cli/exit.js';
import { isObject, type Json, type OpenApiDocument } from '../contract/spec.js';

/**
 * Conventions a spec may follow beyond what OpenAPI can say. The suite checks them only when the
 * spec turns them on (its top-level `x-contract-suite: { rules: [...] }`, as this project's two
 * specs do) or a config file given with `--config` does; a foreign spec is never assumed to
 * follow them. Without `validation-422`, invalid input may be refused with any 4xx.
 */
export const RULES = {
  'closed-query': 'unknown query parameters are refused like an invalid value (OpenAPI has no keyword that closes a query string)',
  'validation-422': 'invalid input is refused with 422, and its problem names each offending value in errors[] with its in and pointer',
  'problem-details': 'an error answered as application/problem+json carries the HTTP status, a type the spec shows for that status and the X-Request-Id',
  'paged-lists': 'an answer with items and nextCursor is a page: at most limit items, ordered by createdAt then id in the direction of sort, walked to its end',
  'ignored-fields': 'a request field the server accepts but provably ignores (every value gives the same answer, a list of two or more) is a violation',
  'body-limit': 'a body one byte over x-limits.maxBodyBytes is refused with 413',
  'content-type-without-body': 'a Content-Type: application/json header on a request with no body is accepted',
  routing: 'an unknown path gets 404 and another method on a known path 405 with Allow, both shaped like the operation’s other errors',
  'auth-challenge': 'a 401 carries a WWW-Authenticate challenge (a Bearer one for a bearer scheme), as RFC 9110 §11.6.1 and RFC 6750 §3 say',
  'credential-format':
    'credentials have a format the server checks before it looks them up (tka_ and a checksum for an API key), so a malformed one is tried beside an unknown one',
} as const;

export type Rule = keyof typeof RULES;
export type Rules = ReadonlySet<Rule>;

/** The spec extension that turns rules on. */
export const RULES_EXTENSION = 'x-contract-suite';

/** Every rule: what this project's own specs turn on (a test holds them to it). */
export const ALL_RULES: Rules = new Set(Object.keys(RULES) as Rule[]);

/** The rules the spec's own `x-contract-suite` turns on, with those of a config file added. */
export function rulesOf(spec: OpenApiDocument, configFile?: string): Set<Rule> {
  const rules = new Set(readRules(spec[RULES_EXTENSION], `the spec's ${RULES_EXTENSION}`));
  if (configFile !== undefined) for (const rule of readRules(readConfig(configFile), configFile)) rules.add(rule);
  return rules;
}

function readConfig(file: string): Json {
  try {
    return parse(readFileSync(file, 'utf8')) as Json;
  } catch (error) {
    throw new UsageError(`cannot read the config ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function readRules(block: Json | undefined, where: string): Rule[] {
  if (block === undefined) return [];
  if (!isObject(block) || (block['rules'] !== undefined && !Array.isArray(block['rules'])))
    throw new UsageError(`${where} must be an object with a list of rules, e.g. { rules: [closed-query, validation-422] }`);
  const names = (block['rules'] ?? []) as Json[];
  const unknown = names.filter((name) => typeof name !== 'string' || !(name in RULES));
  if (unknown.length > 0) throw new UsageError(`${where} names unknown rules: ${unknown.map(String).join(', ')} (known: ${Object.keys(RULES).join(', ')})`);
  return names as Rule[];
}
