/** The part of a pino logger the apps use, so tests can pass a recorder. */
export interface AppLogger {
  info(fields: object, message?: string): void;
  error(fields: object, message?: string): void;
  /** pino's level check; when `info` is off, the request line is not even assembled. */
  isLevelEnabled?(level: string): boolean;
  /** pino's child logger; the request line uses one without redaction (see `requestLog`). */
  child?(bindings: object, options: { redact: string[] }): AppLogger;
  /** Writes buffered lines now; called after the rare lines an operator waits for (the database unavailable). */
  flush?(): void;
}
