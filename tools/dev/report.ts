import type { Breakage } from './explain.js';

/** Seconds with one or two decimals, as the loop prints its timings. */
export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(ms < 1000 ? 2 : 1)} s`;
}

/** The few lines that say what broke: the step, its first errors, and the fix. */
export function describeBreakage(breakage: Breakage): string[] {
  const count = breakage.total > breakage.errors.length ? ` (first ${breakage.errors.length} of ${breakage.total})` : '';
  return [`${breakage.step} failed${count}:`, ...breakage.errors.map((error) => `  ${error}`), ...breakage.fixes.map((fix) => `  fix: ${fix}`)];
}
