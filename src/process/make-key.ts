import { tsxCommand } from './commands.js';
import { describeExit } from './launch.js';
import { runCommand } from './run-command.js';

/** What `keys create --json` prints. */
export interface CreatedKey {
  id: string;
  userId: string;
  key: string;
  hint: string;
  createdAt: string;
}

/**
 * Makes an API key for `user` (created if new) in the database at `databasePath` (or at `env`'s
 * `DATABASE_URL`, which takes precedence as it does for the server), by running
 * the keys CLI (`src/cli/keys.ts create --json`) as an operator would; a running server on that
 * database accepts it at once.
 */
export async function makeKey(databasePath: string, user: string, env: Record<string, string> = {}): Promise<CreatedKey> {
  const result = await runCommand(tsxCommand('src/cli/keys.ts', ['create', '--user', user, '--json']), { env: { ...env, DATABASE_PATH: databasePath } });
  if (result.code !== 0) throw new Error(`keys create --user ${user} failed (${describeExit(result)}): ${result.stderr.trim()}`);
  const created = JSON.parse(result.stdout) as Partial<CreatedKey>;
  if (typeof created.key !== 'string' || typeof created.id !== 'string' || typeof created.userId !== 'string') {
    throw new Error(`keys create --json printed no key, id and userId: ${result.stdout}`);
  }
  return created as CreatedKey;
}
