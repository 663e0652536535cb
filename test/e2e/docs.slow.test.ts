/**
 * The reference pages `npm run docs` writes, in Chromium, opened from disk with
 * the network cut off (every request that is not `file://` is aborted and
 * recorded): a reader sees how to get an API key first, the decision table fits
 * at 1280 px, every operation of both contracts is there with its request
 * samples (curl and the typed client, as the spec gives them) and its examples,
 * nothing is requested from anywhere, and nothing is logged as an error.
 * About 30 s (Redoc takes 2 to 3 s to start on each load), so it runs in `npm run test:slow`.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { type OperationContract, readOperations } from '../../src/contract/operations.js';
import { readContracts } from '../../src/contract/project.js';
import { deref, isObject, loadSpec, type OpenApiDocument } from '../../src/contract/spec.js';
import { buildDocs, docsFile } from '../../src/docs/build.js';
import { codeSamples, SAMPLE_LANGUAGES } from '../../src/docs/code-samples.js';
import { launchChromium, screenshotDir } from './browser.js';

const folder = mkdtempSync(join(tmpdir(), 'docs-e2e-'));
const contracts = readContracts().map((contract) => ({ ...contract, document: loadSpec(contract.spec), file: docsFile(contract.name, folder) }));
let browser: Browser;

beforeAll(async () => {
  const [launched] = await Promise.all([launchChromium(), ...contracts.map((contract) => buildDocs(contract, contract.file))]);
  browser = launched;
}, 90_000);

afterAll(async () => {
  await browser?.close();
  rmSync(folder, { recursive: true, force: true });
});

interface OfflinePage {
  page: Page;
  /** Every request the page tried that was not for a `file://` URL (each was aborted). */
  outside: string[];
  /** Console errors and uncaught exceptions (a request the page's CSP blocks is one). */
  errors: string[];
}

/** The page at 1280 x 800 with the network cut off; a failed test leaves a screenshot. */
async function openOffline(file: string, name: string): Promise<OfflinePage> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const outside: string[] = [];
  await context.route('**/*', async (route) => {
    const url = route.request().url();
    if (url.startsWith('file:')) return route.continue();
    outside.push(url);
    return route.abort('internetdisconnected');
  });
  const page = await context.newPage();
  page.setDefaultTimeout(5_000);
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  onFailureScreenshot(page, name);
  await page.goto(pathToFileURL(file).href);
  return { page, outside, errors };
}

/** Called from inside a test: if it fails, the page as it was is saved and its path printed. */
function onFailureScreenshot(page: Page, name: string): void {
  onTestFailed(async () => {
    const path = join(screenshotDir(), `FAILED-docs-${name}.png`);
    await page.screenshot({ path }).catch(() => undefined);
    console.error(`screenshot of the failed page (${page.url()}): ${path}`);
  });
}

/** The numbered steps of a Markdown section of `info.description`, as a reader sees them (no Markdown marks). */
function steps(description: string, heading: string): string[] {
  const section = description.split(/^## /m).find((part) => part.startsWith(`${heading}\n`)) ?? '';
  return section
    .split(/^\d+\. /m)
    .slice(1)
    .map((step) => step.split('\n\n')[0] ?? '')
    .map((step) =>
      step
        .replace(/\*\*|`/g, '')
        .replace(/\s+/g, ' ')
        .trim(),
    );
}

const normalized = (text: string) => text.replace(/\s+/g, ' ').trim();

/** The text a reader sees (laid out, hidden parts left out), whitespace folded. */
async function visibleText(locator: Locator): Promise<string> {
  // biome-ignore lint/performance/useDomNodeTextContent: the point is what is rendered, not what the DOM holds
  return normalized(await locator.innerText());
}
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The summaries Redoc shows for an operation's named request examples (the example's key when it has none). */
function requestExampleSummaries(spec: OpenApiDocument, operation: OperationContract): string[] {
  const raw = deref(spec, spec.paths[operation.path] ?? null)[operation.method.toLowerCase()];
  const body = isObject(raw) && raw['requestBody'] !== undefined ? deref(spec, raw['requestBody']) : undefined;
  const media = isObject(body?.['content']) ? body['content']['application/json'] : undefined;
  const examples = isObject(media) && isObject(media['examples']) ? media['examples'] : {};
  return Object.entries(examples).map(([name, example]) => {
    const summary = deref(spec, example)['summary'];
    return typeof summary === 'string' ? summary : name;
  });
}

/** The panel's dropdown button that reads `current` (its accessible name may say more). */
function dropdown(panel: Locator, current: string): Locator {
  return panel
    .getByRole('button')
    .filter({ hasText: new RegExp(`^\\s*${escapeRegExp(current)}\\s*$`) })
    .first();
}

/** Opens the panel's dropdown whose button reads `current`, and returns the menu's entries (leaving the choice as it was). */
async function menuEntries(page: Page, panel: Locator, current: string): Promise<string[]> {
  await dropdown(panel, current).click();
  await page.getByRole('menu').waitFor();
  const entries = (await page.getByRole('menuitem').allInnerTexts()).map(normalized);
  await pick(page, current);
  return entries;
}

/** Picks `entry` in the panel's dropdown whose button reads `current`. */
async function choose(page: Page, panel: Locator, current: string, entry: string): Promise<void> {
  await dropdown(panel, current).click();
  await pick(page, entry);
}

/**
 * Picks an entry of the open menu. The menu is portalled near the window's edge, where a
 * pointer click may not land, and it stays open after a keyboard choice: a click event
 * on the entry is what selects it and closes the menu.
 */
async function pick(page: Page, entry: string): Promise<void> {
  await page.getByRole('menuitem', { name: entry, exact: true }).dispatchEvent('click');
  await page.getByRole('menu').waitFor({ state: 'detached' });
}

describe('the docs, offline in Chromium', () => {
  it('are built with Redoc inlined and its telemetry off', () => {
    for (const contract of contracts) {
      const html = readFileSync(contract.file, 'utf8');
      expect(html, contract.name).toMatch(/const __redoc_options = \{[^\n]*"disableTelemetry":true/);
      expect(html, contract.name).toContain('<meta http-equiv="Content-Security-Policy"');
    }
  });

  it('the public API: "Getting an API key" comes first with the real steps, and the decision table reads at 1280 px', async () => {
    const main = contracts.find((contract) => contract.name === 'main');
    if (!main) throw new Error('redocly.yaml has no api named main');
    const { page, outside, errors } = await openOffline(main.file, 'key-section');
    const keyHeading = page.getByRole('heading', { name: 'Getting an API key' });
    await keyHeading.waitFor();
    const decisions = page.getByRole('heading', { name: 'Specified by the source vs decided by this contract' });
    const [keyBox, decisionsBox] = [await keyHeading.boundingBox(), await decisions.boundingBox()];
    expect(keyBox?.y, 'the key section is in the first screen, without scrolling').toBeLessThan(800);
    expect(keyBox?.y ?? Infinity).toBeLessThan(decisionsBox?.y ?? 0);
    const description = String(main.document['info'] && isObject(main.document['info']) ? main.document['info']['description'] : '');
    const keySteps = steps(description, 'Getting an API key');
    expect(keySteps.length, 'info.description has a numbered "Getting an API key" section').toBeGreaterThanOrEqual(3);
    const shown = await visibleText(page.locator('body'));
    for (const step of keySteps) expect(shown).toContain(step);

    const table = page.locator('table').filter({ hasText: 'This contract decides' });
    await table.scrollIntoViewIfNeeded();
    const layout = await table.evaluate((element) => ({
      right: element.getBoundingClientRect().right,
      overflow: element.scrollWidth - element.clientWidth,
      columns: [...(element.querySelector('tr')?.children ?? [])].map((cell) => cell.getBoundingClientRect().width),
    }));
    expect(layout.right, 'the table ends inside the window').toBeLessThanOrEqual(1280);
    expect(layout.overflow, 'the table does not scroll sideways').toBeLessThanOrEqual(0);
    expect(layout.columns).toHaveLength(3);
    // The decisions are long sentences: their column gets room for them (about 60 characters a line).
    expect(layout.columns[2], 'the "This contract decides" column').toBeGreaterThanOrEqual(450);
    expect(outside).toEqual([]);
    expect(errors).toEqual([]);
  });

  for (const contract of contracts) {
    it(`${contract.name}: every operation, with its curl and typed-client samples and its examples, and no request leaves the page`, async () => {
      const { page, outside, errors } = await openOffline(contract.file, contract.name);
      const spec = contract.document;
      const operations = readOperations(spec);
      expect(operations.length).toBeGreaterThan(0);
      for (const operation of operations) {
        const raw = deref(spec, spec.paths[operation.path] ?? null)[operation.method.toLowerCase()];
        const summary = isObject(raw) ? String(raw['summary']) : operation.operationId;
        const tag = isObject(raw) && Array.isArray(raw['tags']) ? String(raw['tags'][0]) : '';
        // The sidebar's entry: the summary, then the method (lower case in the markup, upper case on screen).
        const link = page.getByRole('link', { name: new RegExp(`^${escapeRegExp(summary)}\\s*${operation.method}$`, 'i') });
        if (!(await link.isVisible())) await page.getByText(tag, { exact: true }).first().click();
        await link.click();
        await page.getByRole('heading', { name: summary }).first().waitFor();
        // Redoc's two sample panels: the request (samples by language, the body's named examples) and the answers by status.
        // A tag's page may show all of its operations: the panels of this one are those headed by its method and path.
        const request = page
          .locator('.panel-request-samples')
          .filter({ has: page.getByRole('button', { name: new RegExp(`^${operation.method}\\s*${escapeRegExp(operation.path)}$`, 'i') }) })
          .first();
        const answers = request.locator('xpath=following::*[contains(@class, "panel-response-samples")][1]');

        // The chosen language is the page's, so it carries over to the next operation: check it, then the other.
        const samples = codeSamples(spec, contract.name, operation);
        const shown = (await dropdown(request, SAMPLE_LANGUAGES.client.label).count()) > 0 ? 'client' : 'curl';
        for (const language of shown === 'curl' ? (['curl', 'client'] as const) : (['client', 'curl'] as const)) {
          const { label } = SAMPLE_LANGUAGES[language];
          if (!(await dropdown(request, label).isVisible())) {
            await choose(page, request, SAMPLE_LANGUAGES[language === 'curl' ? 'client' : 'curl'].label, label);
          }
          const sample = samples.find((candidate) => candidate.label === label)?.source ?? '';
          await expect.poll(() => visibleText(request), { message: `${operation.operationId}: ${label} sample`, timeout: 2_000 }).toContain(normalized(sample));
        }

        const requestExamples = requestExampleSummaries(spec, operation);
        // One example has no menu; the curl sample above sends it.
        if (requestExamples.length > 1) expect(await menuEntries(page, request, requestExamples[0] ?? '')).toEqual(requestExamples);

        // Every documented status has its tab, and the first answer's named examples are offered.
        const statuses = Object.keys(operation.responses);
        for (const status of statuses) await answers.getByRole('button', { name: status, exact: true }).first().waitFor();
        const answerExamples = responseExampleSummaries(spec, raw, statuses[0] ?? '');
        if (answerExamples.length > 1) expect(await menuEntries(page, answers, answerExamples[0] ?? '')).toEqual(answerExamples);
      }
      expect(outside).toEqual([]);
      expect(errors).toEqual([]);
    });
  }
});

/** The summaries of the named examples of an operation's answer with this status. */
function responseExampleSummaries(spec: OpenApiDocument, raw: unknown, status: string): string[] {
  if (!isObject(raw as never)) return [];
  const response = deref(spec, (raw as { responses: Record<string, never> }).responses[status]);
  const content = isObject(response['content']) ? Object.values(response['content'])[0] : undefined;
  const examples = isObject(content) && isObject(content['examples']) ? Object.entries(content['examples']) : [];
  return examples.map(([name, example]) => {
    const summary = deref(spec, example)['summary'];
    return typeof summary === 'string' ? summary : name;
  });
}
