import { isObject } from '../../contract/spec.js';
import type { Derived } from '../case.js';
import { documents } from '../operation-facts.js';
import type { FamilyContext } from './family.js';

const CONTENT_TOO_LARGE = 413;

/**
 * Under the rule `body-limit` only: a valid body padded with whitespace to one byte over `x-limits.maxBodyBytes`:
 * valid in every way but its size, so the size is the only reason to refuse it.
 */
export function bodySize({ spec, facts, rules }: FamilyContext): Derived {
  if (!rules.has('body-limit') || !facts.body || !documents(facts.operation, CONTENT_TOO_LARGE)) return { cases: [] };
  const limits = isObject(spec['x-limits']) ? spec['x-limits'] : {};
  const max = limits['maxBodyBytes'];
  if (typeof max !== 'number') return { cases: [], notes: ['no 413 case: the operation documents 413, but the spec gives no x-limits.maxBodyBytes'] };
  const json = JSON.stringify(facts.baseline.body ?? {});
  const body = json + ' '.repeat(Math.max(0, max + 1 - Buffer.byteLength(json)));
  return {
    cases: [
      {
        key: '',
        polarity: 'negative',
        family: 'body-too-large',
        location: 'body',
        title: `body of ${max + 1} bytes (x-limits.maxBodyBytes ${max})`,
        expectedStatus: CONTENT_TOO_LARGE,
        input: facts.baseline,
        live: facts.live,
        overrides: { body },
      },
    ],
  };
}
