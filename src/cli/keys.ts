/**
 * `npm run keys -- <command>`: make, list and revoke API keys until the account
 * settings page exists. Exit codes: 0 done, 1 the request failed (unknown user or
 * key), 2 bad usage.
 */
import { Command } from 'commander';
import { generateApiKey } from '../keys/api-key.js';
import { ConfigError, readStoreConfig } from '../config/env.js';
import { openStore } from '../store/open-store.js';
import { UnsafeLocationError } from '../store/private-files.js';
import { type Store, StoreUnavailable } from '../store/store.js';
import { CommandFailed, runCli, UsageError } from './exit.js';

async function withStore<T>(work: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore(readStoreConfig());
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

function print(json: boolean, value: unknown, text: string): void {
  process.stdout.write(json ? `${JSON.stringify(value)}\n` : `${text}\n`);
}

const program = new Command('keys')
  .description('Manage API keys. The database is DATABASE_URL (PostgreSQL) if set, else DATABASE_PATH (default data/api.sqlite), as for the server.')
  .exitOverride()
  .showHelpAfterError('(run with --help for usage)')
  .configureOutput({ writeErr: (text) => process.stderr.write(text) });

program
  .command('create')
  .description('create a key for a user (the user is created if new); the key is printed once')
  .requiredOption('--user <name>', 'user the key belongs to')
  .option('--json', 'print JSON: {"id","userId","key","hint","createdAt"}')
  .action(async (options: { user: string; json?: boolean }) => {
    const name = options.user.trim();
    if (!/^[A-Za-z0-9._-]{1,64}$/.test(name)) throw new UsageError(`--user must be 1-64 letters, digits, ".", "_" or "-", not ${JSON.stringify(options.user)}`);
    const created = await withStore(async (store) => {
      const now = new Date().toISOString();
      const user = (await store.findUserByName(name)) ?? (await store.createUser(name, now));
      const { key, digest, hint } = generateApiKey();
      return { ...(await store.createKey(user.id, digest, hint, now)), key };
    });
    print(
      options.json ?? false,
      { id: created.id, userId: created.userId, key: created.key, hint: created.hint, createdAt: created.createdAt },
      [`Created key ${created.id} for ${name}. Copy it now; it is not shown again:`, '', `  ${created.key}`, ''].join('\n'),
    );
  });

program
  .command('list')
  .description("list a user's keys (hint, created, last used, revoked); never the keys themselves")
  .requiredOption('--user <name>', 'whose keys to list')
  .option('--json', 'print JSON')
  .action(async (options: { user: string; json?: boolean }) => {
    const keys = await withStore(async (store) => {
      const user = await store.findUserByName(options.user);
      if (!user) throw new CommandFailed(`no user named ${JSON.stringify(options.user)}`);
      return store.listKeys(user.id);
    });
    const rows = keys.map((key) => [key.id, key.hint, key.createdAt, key.lastUsedAt ?? 'never', key.revokedAt ? `revoked ${key.revokedAt}` : 'active'].join('  '));
    print(options.json ?? false, keys, keys.length ? ['id  hint  created  last used (to the minute)  state', ...rows].join('\n') : 'no keys');
  });

program
  .command('revoke')
  .description('revoke a key by id; it stops working on the next request')
  .argument('<id>', 'key id, as `list` shows it')
  .option('--json', 'print JSON')
  .action(async (id: string, options: { json?: boolean }) => {
    const revoked = await withStore((store) => store.revokeKey(id, new Date().toISOString()));
    if (!revoked) throw new CommandFailed(`no active key with id ${JSON.stringify(id)}`);
    print(options.json ?? false, { id, revoked: true }, `Revoked ${id}.`);
  });

await runCli('keys', async () => {
  try {
    await program.parseAsync();
  } catch (error) {
    // A bad or unsafe DATABASE_PATH (or DATABASE_URL) is bad usage of this command too; an unreachable database is a failure.
    if (error instanceof ConfigError || error instanceof UnsafeLocationError) throw new UsageError(error.message);
    throw error instanceof StoreUnavailable ? new CommandFailed(error.message) : error;
  }
});
