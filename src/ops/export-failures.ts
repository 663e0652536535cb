/**
 * Says when spans cannot be exported, without a line per failure: an operator who mistyped
 * `OTEL_EXPORTER_OTLP_ENDPOINT`, or whose collector is away, sees one warning at once and then at most one a minute
 * with the count, where OpenTelemetry alone says nothing (its failures go to a diagnostic logger nobody set) and a
 * line per failed batch would flood the log while the collector is down.
 */

/** At most one warning in this long. */
export const EXPORT_WARNING_INTERVAL_MS = 60_000;

export interface ExportFailureWarning {
  /** The latest failure's reason, as the exporter says it (at most 200 characters). */
  reason: string;
  /** Failures since the last warning, this one included. */
  failures: number;
}

/**
 * A handler for OpenTelemetry's `setGlobalErrorHandler`: each failed export is counted, and `warn` is called for the
 * first and then at most once each `EXPORT_WARNING_INTERVAL_MS`.
 */
export function exportFailureReporter(warn: (warning: ExportFailureWarning) => void, now: () => number = Date.now): (error: unknown) => void {
  let failures = 0;
  let lastWarnedAt = Number.NEGATIVE_INFINITY;
  return (error) => {
    failures++;
    if (now() - lastWarnedAt < EXPORT_WARNING_INTERVAL_MS) return;
    lastWarnedAt = now();
    warn({ reason: (error instanceof Error ? error.message : String(error)).slice(0, 200), failures });
    failures = 0;
  };
}

/** A URL fit for a log line: any user and password it carries (`https://user:token@collector/`) left out. */
export function withoutUserInfo(url: string): string {
  const parsed = new URL(url);
  parsed.username = '';
  parsed.password = '';
  return parsed.href;
}
