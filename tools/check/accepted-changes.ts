import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { isObject } from '../../src/contract/spec.js';

/**
 * A change `redocly diff` rates major although it breaks no client (the rules cannot
 * know that `format: int32` narrows nothing on a value already bounded to 1..100).
 * Matched by rule and by the place the rule points at in the working spec.
 */
export interface AcceptedChange {
  rule: string;
  /** JSON pointer in the working spec, as the rule's location gives it: `#/components/schemas/Limit/format`. */
  at: string;
  reason: string;
}

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
      const { rule, at, reason } = isObject(entry) ? entry : {};
      if (typeof rule !== 'string' || typeof at !== 'string' || typeof reason !== 'string' || reason.trim() === '')
        throw new Error(`${path}: entry ${index + 1} of ${file} needs a rule, an \`at\` pointer and a reason`);
      return { rule, at, reason };
    });
  }
  return accepted;
}
