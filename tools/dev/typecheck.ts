import { statSync } from 'node:fs';
import ts from 'typescript';

/** One TypeScript error, located. */
export interface TypecheckError {
  /** Absolute path, or undefined for a global error (options, missing lib). */
  file: string | undefined;
  line: number;
  column: number;
  code: number;
  /** The head of the message chain: the sentence tsc prints first. */
  message: string;
}

/**
 * `tsc -p <config> --noEmit` kept warm in memory: the first check costs what tsc
 * costs; later checks re-read only files whose modification time changed and
 * re-check only what depends on them (about a second after a change to the
 * generated types, instead of ten for a cold tsc on this project).
 */
export class IncrementalTypecheck {
  readonly #configPath: string;
  readonly #sourceFiles = new Map<string, { modifiedMs: number; file: ts.SourceFile | undefined }>();
  #previous: ts.SemanticDiagnosticsBuilderProgram | undefined;

  constructor(configPath: string) {
    this.#configPath = configPath;
  }

  /**
   * Type-checks the project as it is on disk now; undefined when `cancelled` said so before the end (a
   * newer save made this check stale). The files checked so far keep their results for the next check.
   * The files `first` picks (the server's own: `src/`, `generated/`) are checked before the others, and
   * `onFirst` hears their errors (and the global ones) as soon as they are known, so the server can
   * restart while the tests and tools are still being checked.
   */
  check(
    cancelled: () => boolean = () => false,
    first: (fileName: string) => boolean = () => true,
    onFirst: (errors: TypecheckError[]) => void = () => undefined,
  ): TypecheckError[] | undefined {
    // Read the config on every check so that new and deleted files are seen.
    const parsed = ts.getParsedCommandLineOfConfigFile(
      this.#configPath,
      { noEmit: true },
      {
        ...ts.sys,
        onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
          throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
        },
      },
    );
    if (!parsed) throw new Error(`cannot read ${this.#configPath}`);
    const host = ts.createIncrementalCompilerHost(parsed.options);
    const readSourceFile = host.getSourceFile.bind(host);
    host.getSourceFile = (fileName, languageVersion, onError, shouldCreateNewSourceFile) => {
      const modifiedMs = modificationTime(fileName);
      const cached = this.#sourceFiles.get(fileName);
      // Handing back the same SourceFile object is what lets TypeScript reuse its earlier work.
      if (cached && cached.modifiedMs === modifiedMs && !shouldCreateNewSourceFile) return cached.file;
      const file = readSourceFile(fileName, languageVersion, onError, shouldCreateNewSourceFile);
      this.#sourceFiles.set(fileName, { modifiedMs, file });
      return file;
    };
    const program = ts.createSemanticDiagnosticsBuilderProgram(
      parsed.fileNames,
      parsed.options,
      host,
      this.#previous,
      ts.getConfigFileParsingDiagnostics(parsed),
    );
    this.#previous = program;
    const token: ts.CancellationToken = {
      isCancellationRequested: cancelled,
      throwIfCancellationRequested() {
        if (cancelled()) throw new ts.OperationCanceledException();
      },
    };
    const errorsOf = (diagnostics: readonly ts.Diagnostic[]) =>
      diagnostics.filter((diagnostic) => diagnostic.category === ts.DiagnosticCategory.Error).map(toTypecheckError);
    const ofFile = (file: ts.SourceFile) => [...program.getSyntacticDiagnostics(file, token), ...program.getSemanticDiagnostics(file, token)];
    try {
      // The builder forgets the cached diagnostics of the files a change affects only as it walks them; walk them
      // all first without checking any, so the per-file checks below, in our order, recompute exactly those.
      while (program.getSemanticDiagnosticsOfNextAffectedFile(token, () => true)) {
        // a whole-program result (options changed) has checked everything already; the loop ends on the next call
      }
      const files = program.getSourceFiles();
      const firstErrors = errorsOf([
        ...program.getConfigFileParsingDiagnostics(),
        ...program.getOptionsDiagnostics(token),
        ...program.getGlobalDiagnostics(token),
        ...files.filter((file) => first(file.fileName)).flatMap(ofFile),
      ]);
      onFirst(firstErrors);
      return [...firstErrors, ...errorsOf(files.filter((file) => !first(file.fileName)).flatMap(ofFile))];
    } catch (error) {
      if (error instanceof ts.OperationCanceledException) return undefined;
      throw error;
    }
  }
}

function modificationTime(fileName: string): number {
  try {
    return statSync(fileName).mtimeMs;
  } catch {
    return -1;
  }
}

function toTypecheckError(diagnostic: ts.Diagnostic): TypecheckError {
  const message = typeof diagnostic.messageText === 'string' ? diagnostic.messageText : diagnostic.messageText.messageText;
  if (!diagnostic.file || diagnostic.start === undefined) return { file: undefined, line: 0, column: 0, code: diagnostic.code, message };
  const { line, character } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
  return { file: diagnostic.file.fileName, line: line + 1, column: character + 1, code: diagnostic.code, message };
}
