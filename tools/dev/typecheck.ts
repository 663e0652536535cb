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
   */
  check(cancelled: () => boolean = () => false): TypecheckError[] | undefined {
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
    try {
      const diagnostics = [
        ...program.getConfigFileParsingDiagnostics(),
        ...program.getOptionsDiagnostics(token),
        ...program.getGlobalDiagnostics(token),
        ...program.getSyntacticDiagnostics(undefined, token),
        ...program.getSemanticDiagnostics(undefined, token),
      ];
      return diagnostics.filter((diagnostic) => diagnostic.category === ts.DiagnosticCategory.Error).map(toTypecheckError);
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
