/**
 * docs/data.md, followed as written: each section's shell blocks are read from the page and run in the order the
 * page gives them, with the variables the page tells the operator to set, and what the page promises afterwards
 * is checked (every key and password works on the restored or moved database). The blocks the page holds are
 * checked too, so a command changed on the page is a command changed here.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { StoreConfig } from '../../src/config/env.js';
import { DEFAULT_KEY_EVENTS_RETENTION_DAYS } from '../../src/config/env.js';
import { SECRET_VARIABLES } from '../../src/config/secrets.js';
import { projectRoot } from '../../src/contract/project.js';
import { openStore } from '../../src/store/open-store.js';
import { postgresBinDir } from '../../src/store/postgres-binaries.js';
import { RETENTION_INTERVAL_MS } from '../../src/store/retention.js';
import { SchemaTooNew } from '../../src/store/schema-policy.js';
import { runCommand } from '../../tools/process/run-command.js';
import { startServer } from '../../tools/process/server.js';
import { expectAllPresent, expectCredentialsWork, type MadeData, makeData } from '../helpers/data-fixture.js';
import { freshDatabase } from '../helpers/postgres.js';

const PAGE = readFileSync(join(projectRoot, 'docs/data.md'), 'utf8');
const scratch = mkdtempSync(join(tmpdir(), 'data-guide-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let files = 0;

/** The page's `## ` sections by title, each with its fenced blocks of one language, in order and dedented. */
function blocks(title: string, language: string): string[] {
  const sections = PAGE.split(/^## /m).slice(1);
  const section = sections.find((text) => text.startsWith(`${title}\n`));
  if (!section) throw new Error(`docs/data.md has no section "## ${title}"`);
  const found: string[] = [];
  const fence = new RegExp(`^( *)\`\`\`${language}\\n([\\s\\S]*?)^\\1\`\`\`$`, 'gm');
  for (const match of section.matchAll(fence)) {
    const indent = match[1]?.length ?? 0;
    found.push(
      (match[2] ?? '')
        .split('\n')
        .map((line) => line.slice(indent))
        .join('\n')
        .trim(),
    );
  }
  return found;
}

/** Runs one of the page's blocks as an operator would paste it, from the project's folder, with `env` set. */
async function follow(block: string, env: Record<string, string>): Promise<string> {
  const run = await runCommand(['bash', '-euo', 'pipefail', '-c', block], { env, timeoutMs: 120_000 });
  expect(run.code, `${block}\n${run.stderr}`).toBe(0);
  return run.stdout;
}

const sqlite = (): StoreConfig => ({ databasePath: join(scratch, `db-${++files}`, 'api.sqlite') });
const envOf = (config: StoreConfig): Record<string, string> =>
  config.databaseUrl ? { DATABASE_URL: config.databaseUrl } : { DATABASE_PATH: config.databasePath };

async function withData(config: StoreConfig): Promise<MadeData> {
  const store = await openStore(config);
  try {
    return await makeData(store, 3);
  } finally {
    await store.close();
  }
}

async function expectServed(config: StoreConfig, made: MadeData): Promise<void> {
  const store = await openStore(config);
  try {
    await expectAllPresent(store, made);
  } finally {
    await store.close();
  }
  const server = await startServer({ env: envOf(config) });
  try {
    await expectCredentialsWork(server, made);
  } finally {
    await server.stop();
  }
}

describe('docs/data.md, followed as written', () => {
  it('has the sections an operator looks for', () => {
    expect(PAGE.match(/^## .+$/gm)).toEqual(['## Upgrading', '## Backups', '## Moving to PostgreSQL', '## Secrets', '## Retention']);
  });

  it('"Upgrading": the backup first; the refusal it quotes is the one the code prints', async () => {
    expect(blocks('Upgrading', 'sh')).toEqual(['npm run backup -- --out "$BACKUP"']);
    expect(blocks('Upgrading', 'text')).toEqual([`configuration error: ${new SchemaTooNew(9, 9, 8).message}`]);
    const config = sqlite();
    await withData(config);
    const backup = join(scratch, 'before-upgrade.backup');
    const [first = ''] = blocks('Upgrading', 'sh');
    expect(await follow(first, { ...envOf(config), BACKUP: backup })).toMatch(/^Backed up .* 3 users/m);
    expect(existsSync(backup)).toBe(true);
  });

  it.each([
    { engine: 'SQLite', source: async () => sqlite(), target: async () => sqlite() },
    {
      engine: 'PostgreSQL',
      source: async (): Promise<StoreConfig> => ({ databasePath: ':unused:', databaseUrl: await freshDatabase('guide_source') }),
      target: async (): Promise<StoreConfig> => ({ databasePath: ':unused:', databaseUrl: await freshDatabase('guide_target') }),
    },
  ])('"Backups" on $engine: back up, restore into another database, and every key and password works there', async ({ source, target }) => {
    const [backup = '', restore = ''] = blocks('Backups', 'sh');
    expect([backup, restore]).toEqual(['npm run backup -- --out "$BACKUP"', 'npm run restore -- --from "$BACKUP"']);
    const from = await source();
    const made = await withData(from);
    const file = join(scratch, `backup-${++files}.backup`);
    await follow(backup, { ...envOf(from), BACKUP: file });
    const into = await target();
    expect(await follow(restore, { ...envOf(into), BACKUP: file })).toMatch(/^Restored .* 3 users/m);
    await expectServed(into, made);
  });

  it('"Backups" by hand on PostgreSQL: the pg_dump and pg_restore commands the page gives do the same', async () => {
    const [, , dump = '', restore = ''] = blocks('Backups', 'sh');
    expect(dump).toMatch(/^pg_dump --format=custom /);
    expect(restore).toMatch(/^pg_restore /);
    const from: StoreConfig = { databasePath: ':unused:', databaseUrl: await freshDatabase('guide_by_hand') };
    const made = await withData(from);
    const file = join(scratch, `by-hand-${++files}.backup`);
    const path = `${postgresBinDir()}:${process.env['PATH'] ?? ''}`;
    await follow(dump, { ...envOf(from), BACKUP: file, PATH: path });
    const into: StoreConfig = { databasePath: ':unused:', databaseUrl: await freshDatabase('guide_by_hand_into') };
    await follow(restore, { ...envOf(into), BACKUP: file, PATH: path });
    await expectServed(into, made);
  });

  it('"Moving to PostgreSQL": the copy, then servers on DATABASE_URL accept every key and password', async () => {
    expect(blocks('Moving to PostgreSQL', 'sh')).toEqual(['npm run migrate:store -- --from "$DATABASE_PATH"']);
    const from = sqlite();
    const made = await withData(from);
    const to: StoreConfig = { databasePath: ':unused:', databaseUrl: await freshDatabase('guide_move') };
    const [copy = ''] = blocks('Moving to PostgreSQL', 'sh');
    expect(await follow(copy, { DATABASE_PATH: from.databasePath, DATABASE_URL: to.databaseUrl ?? '' })).toMatch(/^Copied .* 3 users/m);
    await expectServed(to, made);
  });

  it('"Secrets" and "Retention" name the variables, defaults and messages the code has', async () => {
    for (const variable of Object.values(SECRET_VARIABLES)) expect(PAGE).toContain(`| \`${variable}\` | \`${variable}_FILE\` |`);
    expect(PAGE).toContain('`KEY_EVENTS_RETENTION_DAYS` days (default 365)');
    expect(DEFAULT_KEY_EVENTS_RETENTION_DAYS).toBe(365);
    expect(RETENTION_INTERVAL_MS).toBe(60 * 60 * 1000);
    // The server's log lines, where the process composes them (src/server/service.ts's parts).
    const server = ['src/server/pruning.ts', 'src/server/secrets-agreement.ts'].map((file) => readFileSync(join(projectRoot, file), 'utf8')).join('\n');
    for (const message of ['secrets disagree with another instance on this database', 'pruned']) {
      expect(PAGE).toContain(`\`${message}\``);
      expect(server).toContain(`'${message}'`);
    }
  });
});
