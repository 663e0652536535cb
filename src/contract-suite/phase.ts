import type { Derivation } from './cases.js';
import type { CaseResult } from './result.js';
import type { RunContext } from './run-context.js';

/** What a phase may read: the run's context (spec, transport, checks, rules, harvest) and what the derivation read. */
export interface PhaseContext {
  run: RunContext;
  derivation: Derivation;
  /** `--allow-writes`: whether the phase may send requests that write. */
  allowWrites: boolean;
  /** `--examples`: how many generated requests a generating phase sends per operation, when given. */
  examples?: number;
  /** `--seed`: makes a generating phase repeatable, when given. */
  seed?: number;
}

/**
 * A phase of the run after the derived cases (a property-based phase, a stateful one): it sends
 * its own requests through `context.run.transport` and checks the answers with
 * `checkExchange(context.run.checks, …)` (or a `Tally`), and returns results of the same shape as
 * the cases', each naming an operation of the spec. The report, `--json`, `--junit` and the exit
 * code take them as they take the cases'.
 */
export interface Phase {
  /** Shown in progress lines, e.g. `property-based`. */
  name: string;
  run(context: PhaseContext): Promise<CaseResult[]>;
}
