// This project's server in the benchmark: a database with one user, ten items and a key.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../../src/contract/project.js';
import { makeKey } from '../../process/make-key.js';
import { digestApiKey } from '../../../src/keys/api-key.js';
import { openStore } from '../../../src/store/open-store.js';
import { fixtureItems } from './fixture.js';

export const SERVER_ENTRY = 'src/server/main.ts';
const KEYS_CLI = 'src/cli/keys.ts';

export interface ProjectSetup {
  databasePath: string;
  key: string;
  userId: string;
}

/** Whether the server and its key CLI exist yet (they are written alongside the benchmark). */
export function projectServerMissing(): string | undefined {
  for (const file of [SERVER_ENTRY, KEYS_CLI]) if (!existsSync(join(projectRoot, file))) return `${file} does not exist`;
  return undefined;
}

/**
 * Makes a user and a key with the key CLI (as an operator would), then gives the user
 * the benchmark's ten items through the store. The user exists before the server starts,
 * so the server skips its first-run demo seed.
 */
export async function prepareProjectDatabase(directory: string): Promise<ProjectSetup> {
  const databasePath = join(directory, 'bench.sqlite');
  const created = await makeKey(databasePath, 'bench');
  const store = await openStore({ databasePath });
  try {
    for (const item of fixtureItems(created.userId)) await store.createItem(created.userId, item.title, item.createdAt);
  } finally {
    await store.close();
  }
  return { databasePath, key: created.key, userId: created.userId };
}

/**
 * The same user, ten items and key on a PostgreSQL database, so every row of the benchmark is sent the
 * one request: the key is stored by its digest, as the CLI would store it.
 */
export async function preparePostgresDatabase(databaseUrl: string, key: string): Promise<void> {
  const store = await openStore({ databasePath: ':unused:', databaseUrl });
  try {
    const at = new Date().toISOString();
    const user = await store.createUser('bench', at);
    await store.createKey(user.id, digestApiKey(key), `${key.slice(0, 4)}…${key.slice(-4)}`, at);
    for (const item of fixtureItems(user.id)) await store.createItem(user.id, item.title, item.createdAt);
  } finally {
    await store.close();
  }
}
