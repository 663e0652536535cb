/**
 * Prism's validation failures, as the contract words them. Prism validates a
 * request with Ajv and lists what it found in the `sl-violations` response
 * header (`{ location: ['request', 'body', 'limit'], code, message, severity }`),
 * while its body is only the spec's first named 422 example. This turns that
 * header into the contract's violations: the part of the request (`in`), a JSON
 * pointer inside it, and a detail worded as the server words it
 * (`src/contract/schemas.ts`), so a client's error handling holds against both.
 */
import type { Violation } from '../contract/types.js';

/** One entry of Prism's `sl-violations` header (`IPrismDiagnostic` in @stoplight/prism-core). */
export interface PrismViolation {
  location: string[];
  code: string | number;
  message: string;
  severity: string;
}

const PARTS: readonly Violation['in'][] = ['body', 'query', 'path', 'header'];

/** The `sl-violations` header's entries; none when it is absent or not what Prism writes. */
export function readPrismViolations(header: string | null): PrismViolation[] {
  if (!header) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(header);
  } catch {
    return [];
  }
  if (!Array.isArray(parsed)) return [];
  return parsed.filter(
    (entry): entry is PrismViolation =>
      typeof entry === 'object' &&
      entry !== null &&
      Array.isArray(entry.location) &&
      entry.location.every((segment: unknown) => typeof segment === 'string') &&
      typeof entry.message === 'string',
  );
}

/**
 * How a parameter is spelled in the spec, given its part and the name Prism
 * reports (Prism lower-cases path parameter names: `keyId` comes back `keyid`).
 */
export type ParameterName = (part: 'path' | 'query', reported: string) => string;

/**
 * The contract's violations for Prism's request errors (severity `Error`; its
 * warnings do not fail a request). Entries Prism locates outside body, query,
 * path and headers (a content type, security) have no pointer and are left out.
 */
export function toContractViolations(violations: readonly PrismViolation[], parameterName: ParameterName = (_, reported) => reported): Violation[] {
  const result: Violation[] = [];
  const seen = new Set<string>();
  for (const violation of violations) {
    if (violation.severity !== 'Error') continue;
    const translated = translate(violation, parameterName);
    if (!translated) continue;
    const key = `${translated.in}\u0000${translated.pointer}\u0000${translated.detail}`;
    if (seen.has(key)) continue;
    seen.add(key);
    result.push(translated);
  }
  return result;
}

function translate({ location, code, message }: PrismViolation, parameterName: ParameterName): Violation | undefined {
  const [origin, part, ...segments] = location;
  if (origin !== 'request' || !PARTS.includes(part as Violation['in'])) return undefined;
  const where = part as Violation['in'];
  // Prism splits Ajv's instancePath on '/', so each segment is still escaped as a JSON pointer's.
  const [first, ...rest] = segments;
  const names =
    where === 'header'
      ? segments.map((segment) => segment.toLowerCase())
      : (where === 'path' || where === 'query') && first !== undefined
        ? [parameterName(where, first), ...rest]
        : segments;
  const base = names.map((segment) => `/${segment}`).join('');
  const reason = withoutSubject(message, where, segments);
  switch (code) {
    case 'additionalProperties': {
      const field = /; found '(.*)'$/.exec(message)?.[1];
      return field === undefined
        ? { in: where, pointer: base, detail: reason }
        : { in: where, pointer: `${base}/${escapePointer(field)}`, detail: 'is not a known field' };
    }
    case 'required': {
      const field = /required property '(.*)'$/.exec(message)?.[1];
      return field === undefined
        ? { in: where, pointer: base, detail: reason }
        : { in: where, pointer: `${base}/${escapePointer(field)}`, detail: 'is required' };
    }
    case 'enum':
      return { in: where, pointer: base, detail: reason.replace(/^must be equal to one of the allowed values: /, 'must be one of: ') };
    default:
      return { in: where, pointer: base, detail: reason };
  }
}

/**
 * Prism's message without the subject it starts with (`Request body property limit `,
 * `Request query parameter sort `): the pointer says where; the detail says what.
 */
function withoutSubject(message: string, part: string, segments: string[]): string {
  const noun = segments.length === 0 ? '' : `${part === 'body' ? 'property' : 'parameter'} ${segments.join('.')} `;
  const subject = `Request ${part} ${noun}`;
  return message.startsWith(subject) ? message.slice(subject.length) : message;
}

function escapePointer(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}
