/**
 * Waits until an API that honours the contract answers: `GET /shared` (or `path`,
 * e.g. the account API's `/session`) without credentials must come back `401`
 * (from the implementation and from Prism alike).
 * `headers` are added to the probe (the mock launcher asks Prism for its 401
 * with `Prefer: code=401` so the probe is not logged as a rejected request).
 * Rejects when `timeoutMs` passes or `stopped` settles first (the process died).
 */
export async function waitForApi(
  baseUrl: string,
  options: { timeoutMs?: number; stopped?: Promise<unknown>; headers?: Record<string, string>; path?: string } = {},
): Promise<void> {
  const url = `${baseUrl.replace(/\/+$/, '')}${options.path ?? '/shared'}`;
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  let exited = false;
  void options.stopped?.then(
    () => (exited = true),
    () => (exited = true),
  );
  let last = 'no answer yet';
  while (Date.now() < deadline) {
    if (exited) throw new Error(`the process stopped before ${url} answered (${last})`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2_000), ...(options.headers && { headers: options.headers }) });
      await response.body?.cancel();
      if (response.status === 401) return;
      last = `status ${response.status}`;
    } catch (error) {
      last = error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error);
    }
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error(`${url} did not answer 401 within ${options.timeoutMs ?? 30_000} ms (${last})`);
}
