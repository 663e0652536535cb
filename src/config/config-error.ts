/** Thrown for a bad environment variable; the entry point prints it and exits 2. */
export class ConfigError extends Error {}
