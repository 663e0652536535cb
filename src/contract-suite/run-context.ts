import type { OpenApiDocument } from '../contract/spec.js';
import type { CheckContext } from './checks.js';
import type { Transport } from './http.js';
import type { Target } from './known-differences.js';
import type { OperationFacts } from './operation-facts.js';
import type { Rules } from './rules.js';
import type { Harvest } from './values/schema-refs.js';

/** What every case of one run shares. */
export interface RunContext {
  spec: OpenApiDocument;
  transport: Transport;
  checks: CheckContext;
  target: Target;
  maxPages: number;
  /** The conventions the spec turns on (`rules.ts`). */
  rules: Rules;
  /** Every secret of the run as it may appear on the wire, and the label a report shows instead. */
  secrets: Array<[string, string]>;
  facts: Map<string, OperationFacts>;
  /** Values the API has answered with so far, by component: where path parameters find ids that exist. */
  harvest: Harvest;
  /** Prism marks the answers to requests it found invalid with an `sl-violations` header. */
  sawPrism: boolean;
}
