import type { CaseDraft, Derived } from '../case.js';
import type { OperationFacts } from '../operation-facts.js';
import type { FamilyContext } from './family.js';

const NOT_FOUND = 404;
const METHOD_NOT_ALLOWED = 405;
/** Methods tried on a path that lacks them, safest first: a server that wrongly honours one should at worst read. */
const OTHER_METHODS = ['GET', 'PUT', 'PATCH', 'DELETE', 'POST'];
const UNKNOWN_SEGMENT = 'contract-suite-unknown';

/**
 * Under the rule `routing` only: what the spec decides for every path rather than per operation (its
 * `info.description`: "404 for an unknown path, 405 (with an Allow header) for a
 * known path with another method"; RFC 9110 §15.5.5 and §15.5.6 require both).
 * Derived once per path, on its first operation; path parameters get values that
 * cannot exist, so a server that wrongly honours the method finds nothing to act on.
 */
export function routing({ facts, all, values, rules }: FamilyContext): Derived {
  const { operation } = facts;
  if (!rules.has('routing')) return { cases: [] };
  const siblings = all.filter((other) => other.operation.path === operation.path);
  if (siblings[0] !== facts) return { cases: [] };
  const path = fillPath(facts, (name) => {
    const field = facts.fields.find((candidate) => candidate.location === 'path' && candidate.name === name);
    return field ? (values.unguessable(field.schema) ?? facts.baseline.path[name]) : undefined;
  });
  const cases: CaseDraft[] = [];
  const base = { polarity: 'negative' as const, location: 'path' as const, input: { path: {}, query: {}, headers: {} }, live: [], apiWide: true };
  const declared = siblings.map((sibling) => sibling.operation.method);
  const other = OTHER_METHODS.find((method) => !declared.includes(method));
  if (other) {
    cases.push({
      ...base,
      key: other,
      family: 'other-method',
      title: `${other} ${operation.path}, which the path does not have (405 with Allow: ${declared.join(', ')})`,
      expectedStatus: METHOD_NOT_ALLOWED,
      overrides: { method: other, path },
      allow: declared,
    });
  }
  const unknown = `${path.replace(/\/$/, '')}/${UNKNOWN_SEGMENT}`;
  if (!all.some((candidate) => templateMatches(candidate.operation.path, unknown))) {
    cases.push({
      ...base,
      key: '',
      family: 'unknown-path',
      title: `a path under ${operation.path} that the spec does not have`,
      expectedStatus: NOT_FOUND,
      overrides: { method: operation.method, path: unknown },
    });
  }
  return { cases };
}

function fillPath(facts: OperationFacts, valueFor: (name: string) => unknown): string {
  return facts.operation.path.replace(/\{([^}]+)\}/g, (_match, name: string) => encodeURIComponent(String(valueFor(name) ?? name)));
}

function templateMatches(template: string, path: string): boolean {
  const pattern = template
    .split(/\{[^}]+\}/)
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('[^/]+');
  return new RegExp(`^${pattern}$`).test(path);
}
