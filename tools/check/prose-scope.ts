/**
 * Which schema a field name in prose belongs to. `title` is both `Item.title` and `Problem.title`: once
 * `Item.title` is renamed, `title` is still a name of the spec, so a check that asks only "is the name
 * gone?" passes over the decision table's "`Item` (`id`, `title`, ...)". A mention is read as the field
 * of the schema the prose is about where it stands: the schema (`Item`, or its noun, "items") named
 * closest to it in its sentence, else the last one named before it in its paragraph or table row, else
 * the one its section's heading names.
 */

/** A schema that has (or had) the name, and how prose names it. */
export interface Owner {
  schema: string;
  mention: RegExp;
}

/** How prose names a schema: `Item` itself, and, for a one-word name, its noun ("item", "items"). */
export function owner(schema: string): Owner {
  const noun = /^[A-Z][a-z]+$/.test(schema) ? `|${schema}s|${schema.toLowerCase()}s?` : '';
  return { schema, mention: new RegExp(`\\b(?:${schema}${noun})\\b`, 'g') };
}

/** One mention of a name: where it starts in the text, and whether it was backticked (`` `title` ``) or a plain word. */
export interface Mention {
  index: number;
  backticked: boolean;
}

interface Block {
  start: number;
  text: string;
  heading: boolean;
}

/** Paragraphs, each table row on its own, and headings (a heading scopes the blocks after it). */
function blocks(text: string): Block[] {
  const found: Block[] = [];
  let offset = 0;
  let paragraph: Block | undefined;
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    const alone = /^(\||#{1,6} )/.test(trimmed);
    if (trimmed === '' || alone) paragraph = undefined;
    if (alone) found.push({ start: offset, text: line, heading: trimmed.startsWith('#') });
    else if (trimmed !== '') {
      if (paragraph) paragraph.text += `\n${line}`;
      else {
        paragraph = { start: offset, text: line, heading: false };
        found.push(paragraph);
      }
    }
    offset += line.length + 1;
  }
  return found;
}

/** The sentence of `text` around `index`, as [start, end). A full stop ends one only before a space or the end, so `x.ts` does not. */
function sentence(text: string, index: number): [number, number] {
  const ends = [...text.matchAll(/[.!?](?=\s|$)/g)].map((match) => match.index + 1);
  const start = ends.filter((end) => end <= index).at(-1) ?? 0;
  const end = ends.find((end) => end > index) ?? text.length;
  return [start, end];
}

/** Every place each owner is named in `text`. */
function ownerMentions(text: string, owners: readonly Owner[]): Array<{ schema: string; index: number }> {
  return owners.flatMap(({ schema, mention }) => [...text.matchAll(new RegExp(mention.source, 'g'))].map((match) => ({ schema, index: match.index })));
}

/**
 * The mentions of `name` in `text` that mean the field of `schema`, among the `owners` that have or had a field
 * of that name (`schema` one of them). A backticked mention is scoped by its sentence, then its paragraph or
 * row, then its section; a plain word ("a title") only by its sentence, as a word alone says less.
 * `schema.name` (`Item.title`) always means it.
 */
export function scopedMentions(text: string, name: string, schema: string, owners: readonly Owner[]): Mention[] {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const found: Mention[] = [];
  let section: string | undefined;
  for (const block of blocks(text)) {
    if (block.heading) {
      const named = new Set(ownerMentions(block.text, owners).map((mention) => mention.schema));
      section = named.size === 1 ? [...named][0] : undefined;
      continue;
    }
    const around = ownerMentions(block.text, owners);
    for (const match of block.text.matchAll(new RegExp(`(\`)?(?<![\\w.-])(${schema}\\.)?${escaped}(?![\\w-])(\`)?`, 'g'))) {
      const backticked = match[1] !== undefined && match[3] !== undefined;
      const at = match.index;
      let meant: string | undefined;
      if (match[2]) meant = schema;
      else {
        const [start, end] = sentence(block.text, at);
        const inSentence = around.filter((mention) => mention.index >= start && mention.index < end);
        const nearest = inSentence.sort((a, b) => Math.abs(a.index - at) - Math.abs(b.index - at))[0];
        if (nearest) meant = nearest.schema;
        else if (backticked) meant = around.filter((mention) => mention.index < at).at(-1)?.schema ?? section;
      }
      if (meant === schema) found.push({ index: block.start + at, backticked });
    }
  }
  return found;
}
