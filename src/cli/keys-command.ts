/**
 * `npm run keys -- <command>`: the operator's way to make, list and revoke API
 * keys, beside the account settings page (with the same fields: a name and an
 * expiry from the same presets). Exit codes: 0 done, 1 the request failed
 * (unknown user or key), 2 bad usage. A function of its arguments and its
 * input/output (`CliIo`), so tests run it in-process; `keys.ts` runs it on the process's own.
 */
import { Command } from 'commander';
import { accountPresets, accountSchemaCheck } from '../contract/presets.js';
import { loadContractSpec } from '../contract/spec.js';
import { generateApiKey } from '../keys/api-key.js';
import type { Store } from '../store/store.js';
import { CommandFailed, ExitCode, exitCodeFor, UsageError } from './exit.js';
import { type CliIo, processIo } from './io.js';
import { refuseOptionsAsValues } from './option-values.js';
import { asCliError, withStore as withStoreOf } from './with-store.js';

/** Runs `keys` with `argv` (the arguments after the command's name) and returns its exit code. */
export async function runKeys(argv: readonly string[], io: CliIo = processIo): Promise<ExitCode> {
  try {
    await createKeysProgram(io).parseAsync(argv, { from: 'user' });
    return ExitCode.ok;
  } catch (error) {
    return exitCodeFor('keys', asCliError(error), io.err);
  }
}

function createKeysProgram(io: CliIo): Command {
  const print = (json: boolean, value: unknown, text: string) => io.out(json ? `${JSON.stringify(value)}\n` : `${text}\n`);
  const withStore = <T>(work: (store: Store) => Promise<T>) => withStoreOf(io.env, work);
  // The page's presets, from the account spec: the same choice of expiry, and the same default.
  const accountSpec = loadContractSpec('account');
  const { expiresInDays: expiries, keyName: nameLength } = accountPresets(accountSpec);
  // The user is created here if new, as sign-up would: only with a name the account API takes and lists back.
  const userNameProblem = accountSchemaCheck('UserName', accountSpec);
  // A key's name only as the account API takes it (no control character, not blank), so it lists back as the contract says.
  const keyNameProblem = accountSchemaCheck('KeyName', accountSpec);
  const nameBounds = `${nameLength.minLength}-${nameLength.maxLength} characters`;

  const program = new Command('keys')
    .description('Manage API keys. The database is DATABASE_URL (PostgreSQL) if set, else DATABASE_PATH (default data/api.sqlite), as for the server.')
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({ writeOut: io.out, writeErr: io.err });

  program
    .command('create')
    .description('create a key for a user (the user is created if new); the key is printed once')
    .requiredOption('--user <name>', 'user the key belongs to')
    .option('--name <name>', `what the key is for (${nameBounds})`, 'CLI key')
    .option('--expires-in-days <days>', `days until the key expires: ${expiries.values.join(', ')}`, String(expiries.default))
    .option('--json', 'print JSON: {"id","userId","key","name","hint","createdAt","expiresAt"}')
    .action(async (options: { user: string; name: string; expiresInDays: string; json?: boolean }) => {
      const name = options.user.trim();
      const problem = userNameProblem(name);
      if (problem !== undefined) throw new UsageError(`--user ${JSON.stringify(options.user)}: ${problem}`);
      const keyName = options.name.trim();
      if (keyName.length < nameLength.minLength || keyName.length > nameLength.maxLength)
        throw new UsageError(`--name must be ${nameBounds}, not ${JSON.stringify(options.name)}`);
      const nameProblem = keyNameProblem(keyName);
      if (nameProblem !== undefined) throw new UsageError(`--name ${JSON.stringify(options.name)}: ${nameProblem}`);
      const days = Number(options.expiresInDays);
      if (!(expiries.values as number[]).includes(days))
        throw new UsageError(`--expires-in-days must be one of ${expiries.values.join(', ')}, not ${JSON.stringify(options.expiresInDays)}`);
      const created = await withStore(async (store) => {
        const now = Date.now();
        const user = (await store.findUserByName(name)) ?? (await store.createUser(name, new Date(now).toISOString()));
        const { key, digest, hint } = generateApiKey();
        const expiresAt = new Date(now + days * 86_400_000).toISOString();
        return { ...(await store.createKey(user.id, digest, hint, new Date(now).toISOString(), { name: keyName, expiresAt, source: 'cli' })), key };
      });
      print(
        options.json ?? false,
        {
          id: created.id,
          userId: created.userId,
          key: created.key,
          name: created.name,
          hint: created.hint,
          createdAt: created.createdAt,
          expiresAt: created.expiresAt,
        },
        [
          `Created key ${created.id} "${created.name}" for ${name}, expiring ${created.expiresAt}. Copy it now; it is not shown again:`,
          '',
          `  ${created.key}`,
          '',
        ].join('\n'),
      );
    });

  program
    .command('list')
    .description("list a user's keys (name, hint, state, created, last used, expires); never the keys themselves")
    .requiredOption('--user <name>', 'whose keys to list')
    .option('--json', 'print JSON')
    .action(async (options: { user: string; json?: boolean }) => {
      const keys = await withStore(async (store) => {
        const user = await store.findUserByName(options.user);
        if (!user) throw new CommandFailed(`no user named ${JSON.stringify(options.user)}`);
        return store.listKeys(user.id);
      });
      const now = new Date().toISOString();
      const state = (key: (typeof keys)[number]) =>
        key.revokedAt
          ? `revoked ${key.revokedAt}`
          : key.expiresAt !== null && key.expiresAt <= now
            ? 'expired'
            : key.rolledAt
              ? `rolled, works until ${key.expiresAt}`
              : 'active';
      const rows = keys.map((key) =>
        [key.id, JSON.stringify(key.name), key.hint, state(key), key.createdAt, key.lastUsedAt ?? 'never', key.expiresAt ?? 'never'].join('  '),
      );
      print(options.json ?? false, keys, keys.length ? ['id  name  hint  state  created  last used (to the minute)  expires', ...rows].join('\n') : 'no keys');
    });

  program
    .command('events')
    .description("a user's key events, newest first: created, rolled, revoked, expired, first used")
    .requiredOption('--user <name>', 'whose key events to list')
    .option('--limit <n>', 'how many', '50')
    .option('--json', 'print JSON')
    .action(async (options: { user: string; limit: string; json?: boolean }) => {
      const limit = Number(options.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
        throw new UsageError(`--limit must be a whole number from 1 to 1000, not ${JSON.stringify(options.limit)}`);
      const events = await withStore(async (store) => {
        const user = await store.findUserByName(options.user);
        if (!user) throw new CommandFailed(`no user named ${JSON.stringify(options.user)}`);
        await store.recordExpiries(user.id, new Date().toISOString());
        return store.listKeyEvents(user.id, { limit });
      });
      const rows = events.map((event) => [event.at, event.type, event.source, event.keyId, JSON.stringify(event.keyName), event.keyHint].join('  '));
      print(options.json ?? false, events, events.length ? ['at  event  source  key  name  hint', ...rows].join('\n') : 'no events');
    });

  program
    .command('revoke')
    .description('revoke a key by id; a running server refuses it within 100 ms')
    .argument('<id>', 'key id, as `list` shows it')
    .option('--json', 'print JSON')
    .action(async (id: string, options: { json?: boolean }) => {
      const revoked = await withStore((store) => store.revokeKey(id, new Date().toISOString(), { source: 'cli' }));
      if (!revoked) throw new CommandFailed(`no active key with id ${JSON.stringify(id)}`);
      print(options.json ?? false, { id, revoked: true }, `Revoked ${id}.`);
    });

  return refuseOptionsAsValues(program);
}
