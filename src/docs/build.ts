/**
 * The reference pages of every contract `redocly.yaml` lists,
 * rendered by Redocly CLI (Redoc 3) into one self-contained HTML file each,
 * which opens from `file://` with no network and makes no request:
 * the public API in `docs/index.html`, any other contract in `docs/<name>.html`.
 * Each operation gets request samples (curl and the typed client) written from
 * the spec at build time. `npm run docs` is `main.ts`.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { execa } from 'execa';
import { readOperations } from '../contract/operations.js';
import { projectRoot } from '../contract/project.js';
import { isObject, loadSpec, type OpenApiDocument } from '../contract/spec.js';
import { clientSetup, codeSamples, SAMPLE_LANGUAGES } from './code-samples.js';
import { makeOffline } from './offline-html.js';

/**
 * Redoc's options (Redocly CLI takes them as `--openapi <json>`, in place of
 * redocly.yaml's `openapi:` section). One column (`stacked`), so the decision
 * table of the public API reads at 1280 px; the generated samples, then the
 * request body as JSON (`payload`).
 */
export const REDOC_OPTIONS = {
  layout: 'stacked',
  codeSamples: { languages: [SAMPLE_LANGUAGES.curl, SAMPLE_LANGUAGES.client, { key: 'payload', label: 'Payload', lang: 'json' }] },
};

/** Where a contract's page goes: the public API is the folder's index. */
export function docsFile(contract: string, folder = resolve(projectRoot, 'docs')): string {
  return join(folder, contract === 'main' ? 'index.html' : `${contract}.html`);
}

/**
 * How a reader gets the package the typed-client samples import, added to the page's introduction:
 * the samples name `@bearer-list-api/client`, which is not on a public registry.
 */
export function installNote(contract: string, version: string): string {
  const { module, factory } = clientSetup(contract);
  const tarball = `bearer-list-api-client-${version}.tgz`;
  return [
    '## Install the typed client',
    '',
    `The "Typed client" samples import \`${factory}\` from \`${module}\`, the package this project builds from its contracts`,
    `(openapi-fetch and the generated types). In the project's repository, \`npm run build:client\` packs it into \`dist/${tarball}\`;`,
    `in your frontend, \`npm install <path to the repository>/dist/${tarball}\`. Its version is the public contract's \`info.version\`.`,
  ].join('\n');
}

/** The spec as the docs render it: every operation with its `x-codeSamples`, and the client's install note in the introduction. */
export function withCodeSamples(spec: OpenApiDocument, contract: string): OpenApiDocument {
  const copy = structuredClone(spec);
  const info = isObject(copy['info']) ? copy['info'] : {};
  const main = contract === 'main' ? spec : loadSpec();
  const version = String((isObject(main['info']) ? main['info'] : {})['version'] ?? '');
  info['description'] = `${typeof info['description'] === 'string' ? `${info['description'].trimEnd()}\n\n` : ''}${installNote(contract, version)}\n`;
  for (const operation of readOperations(spec)) {
    const pathItem = copy.paths[operation.path];
    const target = isObject(pathItem) ? pathItem[operation.method.toLowerCase()] : undefined;
    if (!isObject(target)) throw new Error(`${operation.operationId}: its path item is a $ref, which the docs build does not follow`);
    target['x-codeSamples'] = codeSamples(spec, contract, operation).map((sample) => ({ ...sample }));
  }
  return copy;
}

/** Renders one contract into `output`; resolves to Redocly's output, throws with it on failure. */
export async function buildDocs(contract: { name: string; spec: string }, output: string): Promise<void> {
  const scratch = mkdtempSync(join(tmpdir(), 'docs-'));
  try {
    // Redocly resolves nothing outside the file: the contracts' $refs are all local.
    const input = join(scratch, `${contract.name}.json`);
    writeFileSync(input, JSON.stringify(withCodeSamples(loadSpec(contract.spec), contract.name)));
    const built = join(scratch, 'page.html');
    // Redocly CLI from the project's node_modules/.bin (execa's preferLocal, as `npm run` finds it).
    const result = await execa(
      'redocly',
      ['build-docs', input, '--config', resolve(projectRoot, 'redocly.yaml'), '--inlineBundle', '--openapi', JSON.stringify(REDOC_OPTIONS), '--output', built],
      { cwd: projectRoot, preferLocal: true, stdin: 'ignore', reject: false, timeout: 60_000 },
    );
    if (result.exitCode !== 0) throw new Error(`redocly build-docs failed for ${relative(projectRoot, contract.spec)}:\n${result.stdout}${result.stderr}`);
    mkdirSync(resolve(output, '..'), { recursive: true });
    writeFileSync(output, makeOffline(readFileSync(built, 'utf8'), relative(projectRoot, contract.spec)));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
