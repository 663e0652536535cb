/**
 * The TypeScript a reader copies: every ```ts block of the README, the pages of `docs/` and the
 * client's README, and every JSDoc `@example` under `src/`, typechecked against the generated types
 * in one TypeScript 7 program, so a renamed field, a dropped enum value or a changed signature fails
 * here, naming the sample's file and line, as it fails in the reader's editor. Imports of the client
 * package (`@bearer-list-api/client`) resolve to `src/client/`; a JSDoc example sees its own
 * module's exports. A name a sample leaves to the reader (`render(page)`) is not an error: only what
 * the sample says about the API is checked (ADR 0032).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { projectRoot } from '../../src/contract/project.js';
import { typescriptCommand } from '../process/commands.js';
import { runCommand } from '../process/run-command.js';

/** One sample: where it is written, and its code as a module of its own. */
export interface CodeSample {
  file: string;
  /** The line of the file where the code starts. */
  line: number;
  code: string;
}

/** The pages whose code a reader copies (the ADRs keep their history, code included, and are left out). */
function pages(root: string): string[] {
  const docs = existsSync(join(root, 'docs')) ? readdirSync(join(root, 'docs')).filter((file) => file.endsWith('.md')) : [];
  return ['README.md', 'src/client/README.md', ...docs.map((file) => `docs/${file}`)].filter((file) => existsSync(join(root, file)));
}

function sourceFiles(root: string, folder: string): string[] {
  return readdirSync(join(root, folder), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(root, join(folder, entry.name)) : entry.name.endsWith('.ts') ? [join(folder, entry.name)] : [],
  );
}

/** The ```ts (or typescript) blocks of a Markdown page. */
export function markdownSamples(file: string, text: string): CodeSample[] {
  const samples: CodeSample[] = [];
  for (const match of text.matchAll(/^```(?:ts|typescript)\s*\n([\s\S]*?)^```/gm)) {
    const line = text.slice(0, match.index).split('\n').length + 1;
    samples.push({ file, line, code: match[1] ?? '' });
  }
  return samples;
}

/** The `@example` blocks of a module's JSDoc, with the module's exports the example names imported. */
export function jsdocSamples(file: string, text: string): CodeSample[] {
  const exported = new Set([...text.matchAll(/^export (?:async )?(?:function\*?|const|class|type|interface|enum) (\w+)/gm)].map((match) => match[1] ?? ''));
  const samples: CodeSample[] = [];
  for (const match of text.matchAll(/^[ \t]*\* @example[ \t]*\n((?:[ \t]*\*(?! @| ?\/).*\n)+)/gm)) {
    const code = (match[1] ?? '').replace(/^[ \t]*\* ?/gm, '');
    const used = [...exported].filter((name) => new RegExp(`\\b${name}\\b`).test(code));
    // The import goes on the sample's first line, so the sample's lines stay the file's.
    const imports = used.length > 0 ? `import { ${used.join(', ')} } from '@module/${file.replace(/\.ts$/, '.js')}'; ` : '';
    samples.push({ file, line: text.slice(0, match.index).split('\n').length + 1, code: imports + code });
  }
  return samples;
}

/** Every sample of the project. */
export function collectSamples(root = projectRoot): CodeSample[] {
  const read = (file: string) => readFileSync(join(root, file), 'utf8');
  return [...pages(root).flatMap((file) => markdownSamples(file, read(file))), ...sourceFiles(root, 'src').flatMap((file) => jsdocSamples(file, read(file)))];
}

/** Errors that mean "the sample leaves this to the reader", not "the sample is wrong about the API". */
const LEFT_TO_THE_READER = new Set([
  2304, // Cannot find name 'render'
  2552, // Cannot find name 'x'. Did you mean ...
  2580, // Cannot find name 'process' (types for Node)
]);

export interface SamplesResult {
  ok: boolean;
  message: string;
}

/** Typechecks every sample; the program and its output live in `node_modules/.cache/code-samples/`. */
export async function checkCodeSamples(root = projectRoot): Promise<SamplesResult> {
  const samples = collectSamples(root);
  const folder = join(root, 'node_modules', '.cache', 'code-samples');
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });
  const up = (path: string) => relative(folder, join(root, path));
  const names = samples.map((_, index) => `sample-${String(index).padStart(3, '0')}.ts`);
  samples.forEach((sample, index) => {
    const header = `// ${sample.file}:${sample.line}\n`;
    writeFileSync(join(folder, names[index] ?? ''), `${header}${sample.code}\nexport {};\n`);
  });
  writeFileSync(
    join(folder, 'tsconfig.json'),
    JSON.stringify({
      extends: up('tsconfig.json'),
      compilerOptions: {
        // A reader's project may be less strict than this one; these rules are about style, not the API.
        noUnusedLocals: false,
        noUnusedParameters: false,
        noPropertyAccessFromIndexSignature: false,
        rootDir: up('.'),
        paths: {
          '@bearer-list-api/client': [up('src/client/index.ts')],
          '@bearer-list-api/client/account': [up('src/client/account.ts')],
          '@module/*': [`${up('.')}/*`],
        },
      },
      include: ['*.ts'],
    }),
  );
  const result = await runCommand(typescriptCommand(['-p', join(folder, 'tsconfig.json'), '--pretty', 'false']), { cwd: root, timeoutMs: 120_000 });
  const { inSamples, elsewhere } = readSampleErrors(result.stdout, samples, names);
  if (inSamples.length + elsewhere.length === 0 && result.code !== 0 && !/error TS/.test(result.stdout))
    inSamples.push(`tsc failed: ${result.stdout}${result.stderr}`.trim());
  return samplesResult(samples.length, inSamples, elsewhere);
}

/**
 * The errors of the samples' program: those in a sample, at the sample's file and line; and those in the
 * code the samples import (`src/client/index.ts`), which no edit of a sample mends.
 */
export function readSampleErrors(stdout: string, samples: readonly CodeSample[], names: readonly string[]): { inSamples: string[]; elsewhere: string[] } {
  const inSamples: string[] = [];
  const elsewhere: string[] = [];
  for (const line of stdout.split('\n')) {
    const match = /^(?:.*[\\/])?(sample-\d+\.ts)\((\d+),(\d+)\): error TS(\d+): (.*)$/.exec(line.trim());
    if (!match) {
      if (/error TS\d+/.test(line)) elsewhere.push(line.trim());
      continue;
    }
    const [, name, row, , code, message] = match;
    if (LEFT_TO_THE_READER.has(Number(code))) continue;
    const sample = samples[names.indexOf(name ?? '')];
    if (!sample) continue;
    const at = sample.line + Number(row) - 2;
    inSamples.push(`${sample.file}:${at}: ${message} (TS${code})`);
  }
  return { inSamples, elsewhere };
}

/** The verdict: each error under the fix that mends it, the code's before the samples' (a sample cannot be right about code that does not compile). */
export function samplesResult(count: number, inSamples: readonly string[], elsewhere: readonly string[]): SamplesResult {
  const errors = (n: number) => `${n} error${n === 1 ? '' : 's'}`;
  if (inSamples.length + elsewhere.length === 0)
    return { ok: true, message: `${count} TypeScript samples (README, docs/, the client's README, JSDoc @example) typecheck against the generated types` };
  return {
    ok: false,
    message: [
      ...(elsewhere.length > 0
        ? [
            `${errors(elsewhere.length)} in the code the samples import, not in a sample; fix that code first (npm run typecheck names it too):`,
            ...elsewhere.map((problem) => `  ${problem}`),
          ]
        : []),
      ...(inSamples.length > 0
        ? [
            `${elsewhere.length > 0 ? 'and ' : ''}${errors(inSamples.length)} in the TypeScript samples; make each sample say what the spec says now:`,
            ...inSamples.map((problem) => `  ${problem}`),
          ]
        : []),
    ].join('\n'),
  };
}
