// This project's server in the benchmark: a database with one user, ten items and a key.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../src/contract/project.js';
import { makeKey } from '../../src/process/make-key.js';
import { openStore } from '../../src/store/open-store.js';
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
