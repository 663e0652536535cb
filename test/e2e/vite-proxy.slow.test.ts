/**
 * A frontend developer's own page, served by a real Vite dev server, calling the account API through Vite's
 * `server.proxy` with the settings docs/mock-and-client.md shows ("Through a dev server's proxy"), read from
 * that page, so the docs cannot drift from what works: against `npm run mock:web` and against the server's
 * web application, in Chromium. The proxy most Vite examples use (`changeOrigin: true` alone) is refused by
 * the same-origin check, with a problem that says what to change.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { portToBindLater } from '../../src/cli/port-to-bind-later.js';
import { projectRoot } from '../../src/contract/project.js';
import { tsxCommand } from '../../tools/process/commands.js';
import { type LaunchedProcess, launch } from '../../tools/process/launch.js';
import { waitForOutput } from '../../tools/process/ready.js';
import { scratchDatabase } from '../../tools/process/scratch-database.js';
import { type ServerProcess, startServer } from '../../tools/process/server.js';
import { launchChromium, openPage } from './browser.js';
import { startViteDevServer } from './helpers/vite-dev-server.js';

/** One the password rule takes: four unrelated words. */
const PASSWORD = 'granite tulip seventy otter';

/** The `ts` blocks of the docs' section on the proxy: the plain config, then the one that keeps changeOrigin. */
function documentedConfigs(): { plain: string; keepsChangeOrigin: string } {
  const page = readFileSync(join(projectRoot, 'docs', 'mock-and-client.md'), 'utf8');
  const section = /^## Through a dev server's proxy$([\s\S]*?)^## /m.exec(page)?.[1];
  if (section === undefined) throw new Error('docs/mock-and-client.md has no section "Through a dev server\'s proxy": update this test with the docs');
  const blocks = [...section.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => match[1] ?? '');
  const [plain, keepsChangeOrigin] = blocks;
  if (blocks.length !== 2 || plain === undefined || keepsChangeOrigin === undefined)
    throw new Error(`expected the section's two vite.config.ts blocks, found ${blocks.length}: update this test with the docs`);
  return { plain, keepsChangeOrigin };
}

/** `config` with the docs' sample target replaced by `target`, failing when the sample is no longer there. */
function withTarget(config: string, sample: string, target: string): string {
  if (!config.includes(`'${sample}'`)) throw new Error(`the docs' vite.config.ts no longer targets '${sample}': update this test with the docs`);
  return config.replaceAll(`'${sample}'`, `'${target}'`);
}

const DOCS_TARGET = 'http://127.0.0.1:4012';
const DOCS_STAGING = 'https://keys.staging.example';

let browser: Browser;
let mock: LaunchedProcess | undefined;
let mockUrl: string;
let server: ServerProcess | undefined;
const database = scratchDatabase('vite-proxy-');

beforeAll(async () => {
  const [pagesPort, mockPort] = [await portToBindLater(), await portToBindLater()];
  mock = launch(tsxCommand('src/mock/web.ts', ['--port', String(pagesPort), '--mock-port', String(mockPort)]));
  const [started, launched] = await Promise.allSettled([startServer({ databasePath: database.path, env: { LOG_LEVEL: 'warn' } }), launchChromium()]);
  if (started.status === 'fulfilled') server = started.value;
  if (launched.status === 'fulfilled') browser = launched.value;
  if (started.status === 'rejected') throw started.reason;
  if (launched.status === 'rejected') throw launched.reason;
  const [, url = ''] = await waitForOutput(mock, /^Web application on (\S+)$/m, { timeoutMs: 60_000 });
  mockUrl = url.replace(/\/$/, '');
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await mock?.stop();
  await server?.stop();
  database.remove();
});

/** Signs up on the Vite page as `name` and returns what the page wrote, once it is done. */
async function signUpThroughVite(config: string, name: string, screenshotName: string): Promise<string> {
  const vite = await startViteDevServer(config);
  try {
    const { page, context } = await openPage(browser, { origin: vite.url, name: screenshotName, width: 1024 });
    await page.goto(vite.url);
    await page.getByLabel('User name').fill(name);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.locator('#result', { hasText: 'done' }).waitFor({ timeout: 20_000 });
    const result = (await page.locator('#result').textContent()) ?? '';
    await context.close();
    return result;
  } finally {
    await vite.stop();
  }
}

function webUrlOf(running: ServerProcess): string {
  return running.webUrl.replace(/\/$/, '');
}

describe("Vite's server.proxy, as docs/mock-and-client.md sets it", () => {
  it('the plain config (no changeOrigin): sign up, the session and a new key through the proxy, against npm run mock:web', async () => {
    const result = await signUpThroughVite(withTarget(documentedConfigs().plain, DOCS_TARGET, mockUrl), 'grace', 'vite-proxy-mock');
    expect(result).toContain('POST /users 201');
    expect(result).toContain('GET /session 200');
    // The stateful mock's session is the user who signed up, through the proxy's cookie.
    expect(result).toContain('signed in as grace');
    expect(result).toContain('POST /keys 201');
  });

  it("the plain config: sign up, the session and a new key through the proxy, against the server's web application", async () => {
    if (!server) throw new Error('no server');
    const result = await signUpThroughVite(withTarget(documentedConfigs().plain, DOCS_TARGET, webUrlOf(server)), 'vite-user', 'vite-proxy-server');
    expect(result).toContain('POST /users 201');
    expect(result).toContain('GET /session 200');
    expect(result).toContain('signed in as vite-user');
    expect(result).toContain('POST /keys 201');
  });

  it('changeOrigin: true with the Origin set on proxyReq (for a target that needs its own Host), against both', async () => {
    if (!server) throw new Error('no server');
    const config = documentedConfigs().keepsChangeOrigin;
    // A name of its own: a mock that keeps its users may refuse one taken by the test above.
    const onMock = await signUpThroughVite(withTarget(config, DOCS_STAGING, mockUrl), 'grace-two', 'vite-proxy-configure-mock');
    expect(onMock).toContain('POST /users 201');
    expect(onMock).toContain('signed in as grace-two');
    expect(onMock).toContain('POST /keys 201');
    const onServer = await signUpThroughVite(withTarget(config, DOCS_STAGING, webUrlOf(server)), 'vite-user-two', 'vite-proxy-configure-server');
    expect(onServer).toContain('POST /users 201');
    expect(onServer).toContain('signed in as vite-user-two');
    expect(onServer).toContain('POST /keys 201');
  });
});

describe('the proxy most Vite examples use, changeOrigin: true alone', () => {
  /** The docs' plain config with changeOrigin: true added, as those examples write it. */
  function changeOriginConfig(target: string): string {
    const config = withTarget(documentedConfigs().plain, DOCS_TARGET, target);
    const changed = config.replace(`{ target: '${target}' }`, `{ target: '${target}', changeOrigin: true }`);
    if (changed === config) throw new Error("the docs' plain config no longer reads { target: '...' }: update this test with the docs");
    return changed;
  }

  it.each([
    { against: 'npm run mock:web', target: () => mockUrl },
    { against: "the server's web application", target: () => (server ? webUrlOf(server) : '') },
  ])('gets a 403 on every write against $against, whose detail says to leave changeOrigin off', async ({ against, target }) => {
    const result = await signUpThroughVite(changeOriginConfig(target()), 'refused-user', `vite-proxy-change-origin-${against.replace(/\W+/g, '-')}`);
    expect(result).toMatch(/^POST \/users 403 .*its Origin is another site.*leave changeOrigin off/m);
    expect(result).toMatch(/^POST \/keys 403 /m);
  });
});
