import { NO_EFFECT_EXTENSION } from '../contract/operations.js';
import type { Json } from '../contract/spec.js';
import { parseJson } from './checks.js';

/** One accepted answer to a request that set a field to one value (or left it out). */
export interface VariantAnswer {
  /** How the request set the field, e.g. `sort="desc"` or `no sort`. */
  label: string;
  body: string;
}

export interface Effect {
  /** Set when the field is provably ignored: the finding's message. */
  ignored?: string;
  /** What the comparison showed, for the report. */
  note: string;
}

/** What to do about an ignored field: the handler reads it, or the spec says it rightly changes nothing. */
export const NO_EFFECT_FIX = `Read it in the handler; or, if it rightly leaves the answer as it is (a header for logs or tracing), say so in the spec: ${NO_EFFECT_EXTENSION}: <why>`;

/** Fewest elements an answer's largest list must hold for a field to be able to change it (order, page size, a filter). */
const ROOM_TO_CHANGE = 2;

/**
 * Judges whether a field the server accepted had any effect. A field is
 * provably ignored only when every value gave the very same answer and that
 * answer had room to change: a list of at least two elements, which any field
 * that orders, pages or filters would have changed. On less data it cannot be
 * told from a field whose effect just does not show, so that is a note, not a
 * failure. A continuation token is judged on its own terms: the first answer
 * offered more, so the same answer again means the token was ignored.
 *
 * Known limit: a filter that every element of the caller's data passes looks
 * ignored. The message shows the values and answers compared, so a reader can
 * tell.
 */
export function judgeEffect(operationId: string, field: { location: string; name: string; continuation?: boolean }, answers: VariantAnswer[]): Effect {
  const subject = `field ${field.name} (${field.location}) of ${operationId}`;
  if (answers.length < 2) return { note: `${field.name}: fewer than two accepted answers to compare, so its effect is not provable here` };
  const bodies = answers.map((answer) => canonical(answer.body));
  if (new Set(bodies).size > 1) return { note: `the answer depends on ${field.name}` };
  const labels = answers.map((answer) => answer.label);
  const shown = `${labels.slice(0, -1).join(', ')} and ${labels.at(-1) ?? ''}`;
  if (field.continuation)
    return { ignored: `${subject} is accepted but ignored: ${shown} gave the same answer, though the first offered a next one`, note: '' };
  const room = largestList(parseJson(answers[0]?.body ?? ''));
  if (room >= ROOM_TO_CHANGE)
    return {
      ignored: `${subject} is accepted but ignored: ${shown} all gave the same answer, whose list of ${room} could have changed. ${NO_EFFECT_FIX}`,
      note: '',
    };
  return {
    note: `${field.name} had no visible effect, but that is not provable on this data: the answers hold ${room === 0 ? 'no list' : 'a list of fewer than 2'}`,
  };
}

function canonical(body: string): string {
  const parsed = parseJson(body);
  return parsed === undefined ? body : JSON.stringify(parsed);
}

/** The length of the longest array anywhere in the answer. */
function largestList(value: Json | undefined): number {
  if (Array.isArray(value)) return Math.max(value.length, ...value.map(largestList));
  if (typeof value === 'object' && value !== null) return Math.max(0, ...Object.values(value).map(largestList));
  return 0;
}
