import { isJsonMediaType } from '../../contract/media-types.js';
import type { CaseDraft, Derived } from '../case.js';
import { documents } from '../operation-facts.js';
import type { FamilyContext } from './family.js';

const BAD_REQUEST = 400;
const UNSUPPORTED_MEDIA_TYPE = 415;

/**
 * How the body is sent: malformed JSON (400) and a JSON body under another
 * content type (415), when the operation takes a JSON body and documents them.
 * Under the rule `content-type-without-body`, an operation without a body must
 * accept a `Content-Type: application/json` header with no body, as the source's
 * example sends one.
 */
export function mediaType({ facts, rules }: FamilyContext): Derived {
  const { operation } = facts;
  const cases: CaseDraft[] = [];
  const base = { key: '', input: facts.baseline, live: facts.live };
  if (!facts.body) {
    if (facts.success !== undefined && rules.has('content-type-without-body')) {
      cases.push({
        ...base,
        polarity: 'positive',
        family: 'content-type-without-body',
        location: 'header',
        title: 'Content-Type: application/json without a body (as in the source example) is accepted',
        expectedStatus: facts.success,
        overrides: { contentType: 'application/json' },
      });
    }
    return { cases };
  }
  if (!isJsonMediaType(facts.body.mediaType)) return { cases };
  if (documents(operation, BAD_REQUEST)) {
    // Cut off after the first key, as a client that crashed mid-write would send it.
    const key = facts.fields.find((field) => field.location === 'body')?.name ?? 'field';
    cases.push({
      ...base,
      polarity: 'negative',
      family: 'malformed-json',
      location: 'body',
      title: 'malformed JSON body',
      expectedStatus: BAD_REQUEST,
      overrides: { body: `{"${key}":` },
    });
  }
  if (documents(operation, UNSUPPORTED_MEDIA_TYPE)) {
    cases.push({
      ...base,
      polarity: 'negative',
      family: 'wrong-content-type',
      location: 'header',
      title: 'JSON body sent as text/plain',
      expectedStatus: UNSUPPORTED_MEDIA_TYPE,
      overrides: { contentType: 'text/plain', body: JSON.stringify(facts.baseline.body ?? {}) },
    });
  }
  return { cases };
}
