import { bufferedIo } from '../../src/cli/io.js';
import { runKeys } from '../../src/cli/keys-command.js';

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
 * `DATABASE_URL`, which takes precedence as it does for the server) with the keys CLI's own code
 * (`keys create --json`), run in this process rather than as one of its own: the harnesses make many
 * keys, and a process each cost a second of CPU. A running server on that database accepts the key
 * at once. `test/server/process.slow.test.ts` runs the CLI as a real process.
 */
export async function makeKey(databasePath: string, user: string, env: Record<string, string> = {}): Promise<CreatedKey> {
  const io = bufferedIo({ ...env, DATABASE_PATH: databasePath });
  const code = await runKeys(['create', '--user', user, '--json'], io);
  if (code !== 0) throw new Error(`keys create --user ${user} failed (exit ${code}): ${io.stderr().trim()}`);
  const created = JSON.parse(io.stdout()) as Partial<CreatedKey>;
  // Names what is missing, never the output itself: it may hold the key.
  const missing = (['key', 'id', 'userId'] as const).filter((field) => typeof created[field] !== 'string');
  if (missing.length > 0) throw new Error(`keys create --json printed no ${missing.join(', ')}`);
  return created as CreatedKey;
}
