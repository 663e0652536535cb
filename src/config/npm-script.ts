/**
 * The npm script that runs one of the project's programs in this install: `npm run keys` where the code runs from
 * source (tsx), `npm run keys:prod` where it runs from the build in `dist/`, since a production install
 * (`npm ci --omit=dev`) has no tsx and `npm run keys` there fails with `tsx: not found`. Told by this module's own
 * file: `.ts` from source, `.js` once compiled.
 *
 * @example
 * `Make a key for it with: ${npmScript('keys')} -- create --user demo`
 */
export function npmScript(program: 'keys' | 'seed'): string {
  return `npm run ${program}${import.meta.url.endsWith('.js') ? ':prod' : ''}`;
}
