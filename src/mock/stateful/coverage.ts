/** The start message's account of the stateful mock: which operations remember, which are guarded, which are the spec's examples. */
import type { StatefulMock } from './stateful-mock.js';

export function coverageLines(coverage: StatefulMock['coverage'], reset: string): string[] {
  const list = (ids: readonly string[]) => (ids.length === 0 ? 'none' : ids.join(', '));
  return [
    `  Stateful: each credential (token, API key, session) sees its own world, kept in memory; \`${reset}\` or \`kill -HUP ${process.pid}\` forgets it.`,
    `    From what was made: ${list(coverage.stateful)}`,
    `    Examples, but 404 once the item is gone: ${list(coverage.guarded)}`,
    `    The spec's examples: ${list(coverage.examples)}`,
  ];
}
