import { LineCounter, parseDocument } from 'yaml';

/**
 * Maps JSON pointers (`#/components/headers/RateLimit-Limit/example`) to the line
 * they are written on, so a check can point at the place to fix in the file.
 */
export function createLineFinder(yamlText: string): (pointer: string) => number | undefined {
  const find = createValueFinder(yamlText);
  return (pointer) => find(pointer)?.line;
}

/** Where a value is written: its characters `[start, end)` in the text, and the line it starts on. */
export interface ValuePlace {
  start: number;
  end: number;
  line: number;
}

/**
 * Maps JSON pointers to the characters of the value they name, as written (a scalar's own text, quotes included),
 * so a fix can rewrite that value alone. A pointer through a `$ref` finds nothing: the value is written elsewhere.
 */
export function createValueFinder(yamlText: string): (pointer: string) => ValuePlace | undefined {
  const lineCounter = new LineCounter();
  const document = parseDocument(yamlText, { lineCounter, keepSourceTokens: false });
  return (pointer) => {
    const node = document.getIn(pointerSegments(pointer), true) as { range?: [number, number, number] } | undefined;
    if (!node?.range) return undefined;
    const [start, end] = node.range;
    return { start, end, line: lineCounter.linePos(start).line };
  };
}

function pointerSegments(pointer: string): string[] {
  const path = pointer.replace(/^#/, '');
  if (path === '' || path === '/') return [];
  return path
    .slice(1)
    .split('/')
    .map((segment) => decodeURIComponent(segment).replaceAll('~1', '/').replaceAll('~0', '~'));
}

/** Escapes one key for use in a JSON pointer. */
export function pointerSegment(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}
