import type { CaseResult } from '../result.js';
import { credentialsPhase } from './credentials.js';
import { type Phase, type PhaseContext, redactSecrets } from './phase.js';
import { propertyPhase } from './property.js';
import { statefulPhase } from './stateful/index.js';

export { PHASE_FAMILIES, type PhaseOptions } from './phase.js';
export { writeRole } from './write-order.js';

/**
 * The phases that run after the derived cases, in this order: the credentials the run was given
 * (while the caller's own data is as the cases left it), the property-based requests, then the
 * stateful sequences, whose writes come last of all (see `write-order.ts`).
 * A new phase is one file here and one line in this list.
 */
const PHASES: Phase[] = [credentialsPhase, propertyPhase, statefulPhase];

/** Runs every phase; each result has every credential of the run replaced by a shell variable. */
export async function runPhases(context: PhaseContext): Promise<CaseResult[]> {
  const results: CaseResult[] = [];
  for (const phase of PHASES) results.push(...(await phase(context)));
  return results.map((result) => redactSecrets(result, context.options));
}
