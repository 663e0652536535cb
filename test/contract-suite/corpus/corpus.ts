import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { createConfig, lint } from '@redocly/openapi-core';
import { portToBindLater } from '../../../src/cli/port-to-bind-later.js';
import { waitForHttp } from '../../../src/cli/wait-for-http.js';
import { readOperations } from '../../../src/contract/operations.js';
import { schemesOf } from '../../../src/contract-suite/credentials.js';
import { runContractSuite, type SuiteReport } from '../../../src/contract-suite/run.js';
import { readSpecSource } from '../../../src/contract-suite/spec/spec-source.js';
import { MOCK_DEFAULTS, prismCommand } from '../../../src/mock/prism.js';
import { type LaunchedProcess, launch } from '../../../tools/process/launch.js';

/** The folder of `@readme/oas-examples`: third-party OpenAPI documents, some valid, some on purpose not. */
export const CORPUS_ROOT = dirname(createRequire(import.meta.url).resolve('@readme/oas-examples/package.json'));

/** Every OpenAPI 3.0 and 3.1 JSON document of the corpus, as a path relative to its root (`3.0/json/petstore.json`). */
export function corpusDocuments(): string[] {
  const documents: string[] = [];
  for (const folder of ['3.0/json', '3.0/json/openapi-workshop', '3.1/json'])
    for (const name of readdirSync(join(CORPUS_ROOT, folder)).sort()) if (name.endsWith('.json')) documents.push(`${folder}/${name}`);
  return documents;
}

/** The document's structural errors as Redocly's `struct` rule finds them: a document with none is valid. */
export async function structuralErrors(document: string): Promise<string[]> {
  const problems = await lint({ ref: join(CORPUS_ROOT, document), config: await createConfig({ rules: { struct: 'error' } }) });
  return problems.filter((problem) => problem.severity === 'error').map((problem) => problem.message);
}

/**
 * Serves the document with Prism (static mode, its examples; no edge in front) on a free port
 * (started again if a request makes it end),
 * runs the suite on it as `npm run contract -- --spec … --target prism --allow-writes` would, with
 * a made-up credential for every security scheme (Prism checks that one is there, not its value),
 * and stops Prism. Writes are allowed: Prism keeps no state.
 */
export async function runOnPrism(document: string): Promise<SuiteReport> {
  const file = join(CORPUS_ROOT, document);
  const source = await readSpecSource(file);
  const foreign = { unknownFormats: source.unknownFormats, notes: source.notes, openapi: source.version };
  // Prism refuses a document without operations (only webhooks, only info); the suite has nothing to send to it either.
  if (readOperations(source.spec, { nameless: 'method-path' }).length === 0)
    return runContractSuite({ spec: source.spec, foreign, baseUrl: 'http://127.0.0.1:9', target: 'prism' });
  const port = await portToBindLater();
  const baseUrl = `http://127.0.0.1:${port}`;
  const start = async (): Promise<LaunchedProcess> => {
    const launched = launch(prismCommand({ ...MOCK_DEFAULTS, port, spec: file, verbose: false }));
    // Prism answers a path no operation has with 404 once it serves the document.
    await waitForHttp(launched, { url: `${baseUrl}/contract-suite-readiness/a/b/c/d`, status: 404 }, { timeoutMs: 60_000, intervalMs: 100 });
    return launched;
  };
  let prism = await start();
  /**
   * A request that makes Prism's process end (it has such bugs) fails, as it should; Prism is then
   * started again on the same port, so the rest of the run checks the other operations rather than
   * finding no server. `restarts` counts them, for the report.
   */
  const restarting: typeof globalThis.fetch = async (input, init) => {
    try {
      return await globalThis.fetch(input, init);
    } catch (error) {
      const ended = await Promise.race([prism.exited.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 2_000))]);
      if (ended) {
        restarts++;
        prism = await start();
      }
      throw error;
    }
  };
  let restarts = 0;
  try {
    const credentials = Object.fromEntries(
      [...schemesOf(source.spec).values()].map((scheme) => [scheme.name, scheme.kind === 'basic' ? 'contract:suite' : 'contract-suite']),
    );
    const report = await runContractSuite({
      spec: source.spec,
      foreign,
      baseUrl,
      credentials,
      target: 'prism',
      allowWrites: true,
      timeoutMs: 10_000,
      fetch: restarting,
    });
    if (restarts > 0) report.hints.push(`Prism's process ended ${restarts} time(s) on a request of this run and was started again`);
    return report;
  } finally {
    await prism.stop({ graceMs: 2_000 });
  }
}

/** A failure as the expectations file lists it: the case, and the kinds of finding that failed it. */
export function failuresOf(report: SuiteReport): Array<{ case: string; categories: string; message: string }> {
  return report.results
    .filter((result) => result.outcome === 'fail')
    .map((result) => ({
      case: result.id,
      categories: [...new Set(result.findings.map((finding) => finding.category))].sort().join(','),
      message: result.findings.map((finding) => finding.message).join('; '),
    }));
}

export function relativeToCorpus(file: string): string {
  return relative(CORPUS_ROOT, file);
}
