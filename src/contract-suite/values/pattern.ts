/**
 * Strings that match a JSON Schema `pattern`, for the regular expressions specs
 * write for identifiers and tokens: literals, escapes (`\d \w \s \.`), classes
 * with ranges and negation, groups, alternation and the quantifiers `? * + {n}
 * {n,} {n,m}`. Anything else (look-arounds, back-references) is not understood:
 * the generator returns undefined rather than guess. Callers validate the result
 * against the whole schema anyway, so a pattern is never the only judge.
 */

/** Picks an integer in `[0, bound)`; a seeded source keeps generated values stable, a random one makes them unguessable. */
export type Pick = (bound: number) => number;

type Node = { kind: 'chars'; chars: string } | { kind: 'group'; branches: Node[][] } | { kind: 'repeat'; node: Node; min: number; max: number; open: boolean };

/** Printable ASCII without space: what a negated class or `.` chooses from. */
const PRINTABLE = Array.from({ length: 94 }, (_, index) => String.fromCharCode(33 + index)).join('');
const DIGITS = '0123456789';
const WORD = `ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz${DIGITS}_`;
/** How far past its minimum an open quantifier (`*`, `+`, `{n,}`) may repeat. */
const OPEN_REPEAT = 3;
/** How far past its minimum an open quantifier repeats when the value must be unguessable (`widest`). */
const WIDE_REPEAT = 16;

/**
 * `widest`: every quantifier repeats as often as it may (an open one `WIDE_REPEAT` times past its minimum),
 * so a random value has all the room the pattern gives: `rep_[0-9]{1,6}` drawn at one digit would hit a
 * real `rep_2` one time in twenty.
 */
export interface MatchOptions {
  widest?: boolean;
}

/** A string matching `pattern`, or undefined when the pattern uses a construct this generator does not know. */
export function stringMatching(pattern: string, pick: Pick, options: MatchOptions = {}): string | undefined {
  let tree: Node[][];
  try {
    tree = new Parser(pattern).parse();
  } catch {
    return undefined;
  }
  const value = emitBranches(tree, pick, options);
  return patternRegExp(pattern)?.test(value) ? value : undefined;
}

/**
 * The pattern as a regular expression: with the `u` flag as JSON Schema means it, else without it
 * (a foreign spec's `{` outside a quantifier is an error only in unicode mode); undefined when
 * JavaScript cannot read it at all (PCRE's possessive quantifiers, for one).
 */
export function patternRegExp(pattern: string): RegExp | undefined {
  for (const flags of ['u', '']) {
    try {
      return new RegExp(pattern, flags);
    } catch {
      // try the next reading
    }
  }
  return undefined;
}

/** A deterministic source of choices (mulberry32), so a seed always yields the same value. */
export function seeded(seed: number): Pick {
  let state = seed >>> 0;
  return (bound) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * bound);
  };
}

function emitBranches(branches: Node[][], pick: Pick, options: MatchOptions): string {
  const branch = branches[pick(branches.length)] ?? [];
  return branch.map((node) => emit(node, pick, options)).join('');
}

function emit(node: Node, pick: Pick, options: MatchOptions): string {
  switch (node.kind) {
    case 'chars':
      return node.chars.charAt(pick(node.chars.length));
    case 'group':
      return emitBranches(node.branches, pick, options);
    case 'repeat': {
      const count = options.widest ? repeatsAtWidest(node) : node.min + pick(node.max - node.min + 1);
      return Array.from({ length: count }, () => emit(node.node, pick, options)).join('');
    }
  }
}

function repeatsAtWidest(node: { min: number; max: number; open: boolean }): number {
  return node.open ? node.min + WIDE_REPEAT : node.max;
}

class Parser {
  #at = 0;
  readonly #source: string;

  constructor(source: string) {
    // Anchors only at the ends: a spec pattern is implicitly unanchored, but generating the whole match is what we want.
    this.#source = source.replace(/^\^/, '').replace(/(?<!\\)\$$/, '');
  }

  parse(): Node[][] {
    const branches = this.#alternation();
    if (this.#at < this.#source.length) throw new Error(`unexpected ${this.#source[this.#at]}`);
    return branches;
  }

  #alternation(): Node[][] {
    const branches: Node[][] = [this.#sequence()];
    while (this.#peek() === '|') {
      this.#at++;
      branches.push(this.#sequence());
    }
    return branches;
  }

  #sequence(): Node[] {
    const nodes: Node[] = [];
    while (this.#at < this.#source.length && this.#peek() !== '|' && this.#peek() !== ')') {
      nodes.push(this.#quantified(this.#atom()));
    }
    return nodes;
  }

  #atom(): Node {
    const char = this.#next();
    switch (char) {
      case '(': {
        if (this.#peek() === '?') {
          if (this.#source.slice(this.#at, this.#at + 2) !== '?:') throw new Error('look-arounds and named groups are not supported');
          this.#at += 2;
        }
        const branches = this.#alternation();
        if (this.#next() !== ')') throw new Error('unclosed group');
        return { kind: 'group', branches };
      }
      case '[':
        return { kind: 'chars', chars: this.#characterClass() };
      case '.':
        return { kind: 'chars', chars: PRINTABLE };
      case '\\':
        return { kind: 'chars', chars: this.#escape() };
      case '^':
      case '$':
        throw new Error('anchors inside a pattern are not supported');
      default:
        return { kind: 'chars', chars: char };
    }
  }

  #quantified(node: Node): Node {
    const char = this.#peek();
    let bounds: [number, number, boolean] | undefined;
    if (char === '?') bounds = [0, 1, false];
    else if (char === '*') bounds = [0, OPEN_REPEAT, true];
    else if (char === '+') bounds = [1, 1 + OPEN_REPEAT, true];
    else if (char === '{') {
      const match = /^\{(\d+)(,(\d*))?\}/.exec(this.#source.slice(this.#at));
      if (!match) return node;
      const min = Number(match[1]);
      const open = match[2] !== undefined && !match[3];
      const max = match[2] === undefined ? min : open ? min + OPEN_REPEAT : Number(match[3]);
      this.#at += match[0].length - 1;
      bounds = [min, max, open];
    }
    if (!bounds) return node;
    this.#at++;
    if (this.#peek() === '?') this.#at++; // lazy makes no difference to what matches
    return { kind: 'repeat', node, min: bounds[0], max: bounds[1], open: bounds[2] };
  }

  #characterClass(): string {
    const negated = this.#peek() === '^';
    if (negated) this.#at++;
    let chars = '';
    while (this.#peek() !== ']') {
      if (this.#at >= this.#source.length) throw new Error('unclosed class');
      const start = this.#next();
      const from = start === '\\' ? this.#escape() : start;
      if (this.#peek() === '-' && this.#source[this.#at + 1] !== ']' && from.length === 1) {
        this.#at++;
        const end = this.#next();
        const to = end === '\\' ? this.#escape() : end;
        for (let code = from.charCodeAt(0); code <= to.charCodeAt(0); code++) chars += String.fromCharCode(code);
      } else {
        chars += from;
      }
    }
    this.#at++;
    if (!negated) return chars;
    const allowed = [...PRINTABLE].filter((char) => !chars.includes(char)).join('');
    if (allowed === '') throw new Error('a negated class that excludes every printable character');
    return allowed;
  }

  #escape(): string {
    const char = this.#next();
    switch (char) {
      case 'd':
        return DIGITS;
      case 'w':
        return WORD;
      case 's':
        return ' ';
      case 'D':
        return 'a';
      case 'W':
        return '-';
      case 'S':
        return 'a';
      case 'b':
      case 'B':
      case 'p':
      case 'P':
      case 'k':
        throw new Error(`\\${char} is not supported`);
      default:
        if (/[1-9]/.test(char)) throw new Error('back-references are not supported');
        return char;
    }
  }

  #peek(): string | undefined {
    return this.#source[this.#at];
  }

  #next(): string {
    const char = this.#source[this.#at++];
    if (char === undefined) throw new Error('unexpected end of pattern');
    return char;
  }
}
