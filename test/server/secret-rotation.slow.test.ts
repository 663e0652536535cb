/**
 * Secrets from files, rotated across instances on one database (docs/data.md, "Secrets"): an instance given
 * `new, old` accepts the cursors an instance given `old` signed, and says at start that the `old` instance
 * will refuse what it signs; its own `/readyz` reports it, while the `old` instance, running before it, stays
 * ready; an instance with the database's own secret accepts neither.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateApiKey } from '../../src/keys/api-key.js';
import { openStore } from '../../src/store/open-store.js';
import { type ServerProcess, startServer } from '../../tools/process/server.js';
import { freshDatabase } from '../helpers/postgres.js';

const scratch = mkdtempSync(join(tmpdir(), 'secret-rotation-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const OLD = 'old-secret-'.padEnd(40, 'o');
const NEW = 'new-secret-'.padEnd(40, 'n');

function secretFile(name: string, text: string): string {
  const file = join(scratch, name);
  writeFileSync(file, text, { mode: 0o600 });
  return file;
}

async function page(server: ServerProcess, key: string, cursor?: string): Promise<{ status: number; nextCursor?: string }> {
  const response = await fetch(`${server.url}/`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ limit: 1, ...(cursor && { cursor }) }),
  });
  const body = (await response.json()) as { nextCursor?: string };
  return { status: response.status, ...(body.nextCursor && { nextCursor: body.nextCursor }) };
}

describe('cursor secrets from files, rotated across instances', () => {
  it('an instance given new,old accepts what old signed, warns that old refuses what it signs; the database default accepts neither', async () => {
    const url = await freshDatabase('secret_rotation');
    const store = await openStore({ databasePath: ':unused:', databaseUrl: url });
    const user = await store.createUser('ann', new Date().toISOString());
    const { key, digest, hint } = generateApiKey();
    await store.createKey(user.id, digest, hint, new Date().toISOString());
    for (const title of ['one', 'two', 'three']) await store.createItem(user.id, title, new Date().toISOString());
    await store.close();

    const servers: ServerProcess[] = [];
    try {
      const old = await startServer({ env: { DATABASE_URL: url, OPS_PORT: '0', CURSOR_SECRETS_FILE: secretFile('old', `${OLD}\n`) } });
      const ops = old.opsUrl;
      expect(ops, old.outputTail()).toBeDefined();
      expect((await fetch(`${ops}/readyz`)).status, 'alone, it agrees with itself').toBe(200);
      servers.push(old);
      const fromOld = (await page(old, key)).nextCursor;
      expect(fromOld).toBeDefined();

      const rotated = await startServer({ env: { DATABASE_URL: url, OPS_PORT: '0', CURSOR_SECRETS_FILE: secretFile('rotated', `${NEW}\n${OLD}\n`) } });
      servers.push(rotated);
      expect(await page(rotated, key, fromOld)).toMatchObject({ status: 200 });
      const fromRotated = (await page(rotated, key)).nextCursor;
      expect((await page(old, key, fromRotated)).status, 'the old instance does not know the new secret').toBe(422);
      await expect.poll(() => rotated.stdout(), { timeout: 5_000 }).toMatch(/secrets disagree with another instance/);
      expect(rotated.stdout()).toContain('an instance running before this one does not accept the CURSOR_SECRETS secret this one signs with');
      expect(rotated.stdout()).toContain('"cursor":"CURSOR_SECRETS (2)"');
      expect(rotated.stdout() + rotated.stderr()).not.toContain(NEW);
      // The newcomer is the one taken out of the balancer (a rolling deployment stops at it); the old one stays ready.
      const rotatedOps = rotated.opsUrl;
      const readyz = await fetch(`${rotatedOps}/readyz`);
      expect(readyz.status).toBe(503);
      const report = (await readyz.json()) as { checks: Record<string, { ready: boolean; reason?: string }> };
      expect(report.checks['secrets']?.reason).toContain('an instance running before this one does not accept the CURSOR_SECRETS secret this one signs with');
      expect((await fetch(`${ops}/readyz`)).status, 'the instance running first stays ready').toBe(200);

      const plain = await startServer({ env: { DATABASE_URL: url } });
      servers.push(plain);
      expect((await page(plain, key, fromOld)).status).toBe(422);
      expect((await page(plain, key, fromRotated)).status).toBe(422);
    } finally {
      await Promise.all(servers.map((server) => server.stop()));
    }
  });
});
