/**
 * The contract suite (`npm run contract`) against an instance on PostgreSQL, with the demo's kind of data
 * (own items over several pages, items shared by others, one kept private): the whole HTTP stack on the
 * second engine answers as the spec says.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tsxCommand } from '../../tools/process/commands.js';
import { makeKey } from '../../tools/process/make-key.js';
import { runCommand } from '../../tools/process/run-command.js';
import { type ServerProcess, startServer } from '../../tools/process/server.js';
import { DEMO_USER, seedDemoDatabase } from '../../src/store/demo-data.js';
import { freshDatabase } from '../helpers/postgres.js';

let server: ServerProcess;
let key: string;

beforeAll(async () => {
  const databaseUrl = await freshDatabase('contract');
  await seedDemoDatabase({ databasePath: ':unused:', databaseUrl });
  ({ key } = await makeKey(':unused:', DEMO_USER, { DATABASE_URL: databaseUrl }));
  server = await startServer({ databasePath: ':unused:', env: { DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn', NODE_ENV: 'development' }, timeoutMs: 30_000 });
});

afterAll(async () => {
  await server?.stop();
});

describe('the contract suite against an instance on PostgreSQL', () => {
  it('passes with no violation', async () => {
    const result = await runCommand(tsxCommand('src/contract-suite/main.ts', ['--base-url', server.url, '--token', key]), { timeoutMs: 120_000 });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout.trimEnd().split('\n').at(-1)).toBe('PASSED: no contract violations.');
  });
});
