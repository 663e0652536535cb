/**
 * Why the server could not start, and the exit code its process ends with: 2 for what the configuration names
 * (an address not of this machine, a database that refuses the credentials, a schema too new), 1 for the rest.
 * `said` is what the process writes on stderr before it exits (a line, or an error with its stack).
 */
export class StartFailure extends Error {
  override name = 'StartFailure';
  constructor(
    readonly exitCode: 1 | 2,
    readonly said: unknown,
  ) {
    super(said instanceof Error ? said.message : String(said));
  }
}
