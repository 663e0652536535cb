import type { AccountProblem } from '../client/account.js';

/** A form field the answer can name: the JSON pointer of its body property, and how a sentence names it ("The password"). */
export interface NamedField {
  pointer: string;
  /** The input's id. */
  id: string;
  /** The field as a sentence's subject, capitalised: "The password". */
  subject: string;
}

/** What a refused form shows: one message in sentences, and the fields it is about, first the one to focus. */
export interface FieldProblem {
  message: string;
  /** Ids of the fields the problem names, in the order of its violations; empty when it names none of them. */
  invalid: string[];
}

/**
 * A refused form's problem as the page shows it. A validation problem's violations each become a sentence
 * naming their field ("The password repeats a character ..."), and those fields are returned to be marked
 * invalid and focused: the user lands on the field to fix, not on the form's first one. A violation of a
 * field the form does not have is still shown, as the request's. Any other problem shows its detail
 * (`fallback` when it has none) and names no field.
 */
export function fieldProblem(problem: AccountProblem | undefined, fields: readonly NamedField[], fallback: string): FieldProblem {
  const violations = problem?.type === 'urn:problem-type:validation-failed' ? (problem.errors ?? []) : [];
  if (violations.length === 0) return { message: capitalise(problem?.detail || fallback), invalid: [] };
  const invalid: string[] = [];
  const sentences = violations.map((violation) => {
    const field = fields.find((candidate) => candidate.pointer === violation.pointer);
    if (field && !invalid.includes(field.id)) invalid.push(field.id);
    return sentence(`${field?.subject ?? 'The request'} ${violation.detail}`);
  });
  return { message: sentences.join(' '), invalid };
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function sentence(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}
