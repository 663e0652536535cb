/**
 * The PostgreSQL URL as operators hand it over: in `DATABASE_URL`, or in a file named by `DATABASE_URL_FILE` (as
 * Docker and Kubernetes mount secrets, like the other `_FILE` secrets, config/secrets.ts), with its password
 * optionally apart in a file named by `DATABASE_PASSWORD_FILE`, so the URL itself may sit in plain configuration.
 * Errors name the variable and the file, never a value (it holds a password).
 */
import { readFileSync } from 'node:fs';
import { ConfigError } from './config-error.js';
import { passwordOf } from './database-url.js';

type ReadFile = (path: string) => string;

/** The URL the environment gives, its password file applied; undefined when no URL is set (the SQLite store). */
export function readDatabaseUrl(env: NodeJS.ProcessEnv, readFile: ReadFile = (path) => readFileSync(path, 'utf8')): string | undefined {
  const direct = env['DATABASE_URL'] || undefined;
  const file = env['DATABASE_URL_FILE'] || undefined;
  if (direct && file) throw new ConfigError('set DATABASE_URL or DATABASE_URL_FILE, not both');
  const url = file ? firstLine(readSecretFile('DATABASE_URL_FILE', file, readFile), 'DATABASE_URL_FILE', file) : direct;
  const passwordFile = env['DATABASE_PASSWORD_FILE'] || undefined;
  if (!passwordFile) return url;
  if (!url) throw new ConfigError('DATABASE_PASSWORD_FILE has no effect without DATABASE_URL or DATABASE_URL_FILE: it gives the PostgreSQL password');
  const password = firstLine(readSecretFile('DATABASE_PASSWORD_FILE', passwordFile, readFile), 'DATABASE_PASSWORD_FILE', passwordFile);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url; // The URL check that follows says what is wrong with it.
  }
  if (passwordOf(parsed) !== '') throw new ConfigError('the database URL holds a password and DATABASE_PASSWORD_FILE gives one too: keep one of them');
  parsed.password = encodeURIComponent(password);
  return parsed.toString();
}

function readSecretFile(variable: string, path: string, readFile: ReadFile): string {
  try {
    return readFile(path);
  } catch (error) {
    throw new ConfigError(`${variable} names ${path}, which cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

/** The file's one value: surrounding whitespace and a final newline are the file's, not the secret's. */
function firstLine(text: string, variable: string, path: string): string {
  const value = text.trim();
  if (value === '') throw new ConfigError(`${variable} names ${path}, which is empty`);
  if (/[\r\n]/.test(value)) throw new ConfigError(`${variable} names ${path}, which holds more than one line: it must hold the one value`);
  return value;
}
