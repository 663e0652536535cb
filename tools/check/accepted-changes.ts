import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { isObject } from '../../src/contract/spec.js';

/**
 * A change `redocly diff` rates major although it breaks no client (the rules cannot
 * know that `format: int32` narrows nothing on a value already bounded to 1..100).
 * Matched by rule and by the place the rule points at in the working spec; an enum change
 * also by the values it adds or removes, so a later value at the same place is judged on its own.
 */
export interface AcceptedChange {
  rule: string;
  /** JSON pointer in the working spec, as the rule's location gives it: `#/components/schemas/Limit/format`. */
  at: string;
  /** For an enum rule (`enum-values-added`, `enum-values-removed`): every value the change adds or removes, as the rule lists them. */
  values?: string[];
  reason: string;
}

/** The rules whose verdict lists enum values: an entry for one of them must say which values it accepts. */
export const ENUM_RULES: ReadonlySet<string> = new Set(['enum-values-added', 'enum-values-removed']);

/** Accepted changes per spec file name (`openapi.yaml`). */
export type AcceptedChanges = Record<string, AcceptedChange[]>;

/**
 * Reads the accepted-changes file. Every entry needs a rule, a place and a reason;
 * anything else is refused with the file and entry named.
 */
export function readAcceptedChanges(path: string): AcceptedChanges {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return {};
  }
  const document: unknown = parse(text) ?? {};
  if (!isObject(document)) throw new Error(`${path} must map each spec file name to a list of accepted changes`);
  const accepted: AcceptedChanges = {};
  for (const [file, entries] of Object.entries(document)) {
    if (entries === null) {
      accepted[file] = [];
      continue;
    }
    if (!Array.isArray(entries)) throw new Error(`${path}: ${file} must be a list of accepted changes`);
    accepted[file] = entries.map((entry, index) => {
      const { rule, at, reason, values } = isObject(entry) ? entry : {};
      if (typeof rule !== 'string' || typeof at !== 'string' || typeof reason !== 'string' || reason.trim() === '')
        throw new Error(`${path}: entry ${index + 1} of ${file} needs a rule, an \`at\` pointer and a reason`);
      if (values !== undefined && !(Array.isArray(values) && values.every((value) => typeof value === 'string')))
        throw new Error(`${path}: entry ${index + 1} of ${file}: \`values\` must be a list of the enum values the change adds or removes`);
      if (ENUM_RULES.has(rule) && values === undefined)
        throw new Error(
          `${path}: entry ${index + 1} of ${file} (${rule}) needs \`values\`: the enum values its reason is about, so that a value added later at ${at} is not accepted with them`,
        );
      return { rule, at, reason, ...(values !== undefined && { values: values as string[] }) };
    });
  }
  return accepted;
}
