/**
 * `npm run seed`: adds the demo data (a user "demo" with items of their own and items shared by
 * "alice" and "bob") to the database the server uses, for trying the API with real pages. The
 * server never seeds on its own, and this prints no key: make one for the demo user with
 * `npm run keys -- create --user demo`, which shows it once to whoever asked. Exit codes: 0
 * done, 1 the demo users already exist, 2 bad usage.
 */
import { Command } from 'commander';
import { npmScript } from '../config/npm-script.js';
import { DEMO_USER, DEMO_USERS, seedDemo } from '../store/demo-data.js';
import { CommandFailed, runCli } from './exit.js';
import { asCliError, withStore } from './with-store.js';

const program = new Command('seed')
  .description(
    `Add the demo data: users ${DEMO_USERS.map((name) => JSON.stringify(name)).join(', ')}, with items shared with "${DEMO_USER}". ` +
      'The database is DATABASE_URL (PostgreSQL) if set, else DATABASE_PATH (default data/api.sqlite), as for the server. No key is made.',
  )
  .exitOverride()
  .showHelpAfterError('(run with --help for usage)')
  .configureOutput({ writeErr: (text) => process.stderr.write(text) })
  .action(async () => {
    const seeded = await withStore(process.env, async (store) => {
      for (const name of DEMO_USERS)
        if (await store.findUserByName(name)) throw new CommandFailed(`a user named "${name}" already exists; the demo data is added only once`);
      return seedDemo(store, Date.now());
    });
    process.stdout.write(
      [
        `Added the demo data: user "${seeded.userName}" with sample items, and items shared by ${DEMO_USERS.filter((name) => name !== DEMO_USER).join(' and ')}.`,
        `Make a key for it with: ${npmScript('keys')} -- create --user ${seeded.userName}`,
        '',
      ].join('\n'),
    );
  });

await runCli('seed', async () => {
  try {
    await program.parseAsync();
  } catch (error) {
    throw asCliError(error);
  }
});
