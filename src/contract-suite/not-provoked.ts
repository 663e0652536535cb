import type { SuiteCase } from './case.js';
import type { OperationFacts } from './operation-facts.js';

/** A documented status that no case asks for, and why; the report lists these rather than drop them silently. */
export interface NotProvoked {
  status: string;
  reason: string;
}

/** Statuses the suite never provokes on purpose, whatever the spec says. */
const NEVER: Record<string, string> = {
  '429': "provoking it would spend the caller's whole quota for the window and lock the key out of the service it checks",
  '408': 'provoking it would hold a connection open for the whole request timeout',
  '503': "it is the answer while the service cannot reach its database; the suite cannot (and must not) take a deployment's database away",
};
const SERVER_ERROR = 'no correct request can make a correct server fail; every answer is checked for a 5xx instead';

/** The documented statuses of the operation that none of its runnable cases expects. */
export function notProvoked(facts: OperationFacts, cases: SuiteCase[]): NotProvoked[] {
  const runnable = cases.filter((entry) => entry.skip === undefined);
  const expected = new Set(runnable.map((entry) => String(entry.expectedStatus)));
  const result: NotProvoked[] = [];
  for (const status of Object.keys(facts.operation.responses)) {
    if (status === 'default') continue;
    const range = /^[1-5]XX$/.exec(status);
    if (range ? [...expected].some((seen) => seen[0] === status[0]) : expected.has(status)) continue;
    result.push({ status, reason: reasonFor(status, facts, cases) });
  }
  return result;
}

function reasonFor(status: string, facts: OperationFacts, cases: SuiteCase[]): string {
  if (status in NEVER) return NEVER[status] as string;
  if (status.startsWith('5')) return SERVER_ERROR;
  if (status.startsWith('2') && facts.unsafe !== undefined) return facts.unsafe;
  if (status.startsWith('2') && cases.some((entry) => entry.polarity === 'positive'))
    return `the positive cases expect ${facts.success ?? 'another 2xx'}, the lowest documented success`;
  return 'the suite knows no request that provokes it safely';
}
