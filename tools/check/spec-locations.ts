import { LineCounter, parseDocument } from 'yaml';

/**
 * Maps JSON pointers (`#/components/headers/RateLimit-Limit/example`) to the line
 * they are written on, so a check can point at the place to fix in the file.
 */
export function createLineFinder(yamlText: string): (pointer: string) => number | undefined {
  const lineCounter = new LineCounter();
  const document = parseDocument(yamlText, { lineCounter, keepSourceTokens: false });
  return (pointer) => {
    const node = document.getIn(pointerSegments(pointer), true) as { range?: [number, number, number] } | undefined;
    const offset = node?.range?.[0];
    return offset === undefined ? undefined : lineCounter.linePos(offset).line;
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
