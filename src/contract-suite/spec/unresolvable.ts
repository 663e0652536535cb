/**
 * A document that parses but cannot be resolved (a `$ref` to nothing, a file that is not there): the
 * suite cannot know what its operations take, so it checks nothing. Its own exit code (`command.ts`).
 * Apart from `spec-source.ts`, which loads Redocly's bundler (a devDependency) only when `--spec` is given.
 */
export class UnresolvableSpec extends Error {
  override name = 'UnresolvableSpec';
}
