/** What a held server writes on stderr once it is ready to listen (`LISTEN_ON_SIGNAL=1`). */
export const READY_TO_LISTEN_LINE = 'Ready to listen on SIGUSR2';
/** What a server started with `LOAD_ON_SIGNAL=1` writes on stderr once its code is loaded, before it reads anything. */
export const READY_TO_LOAD_LINE = 'Ready to load on SIGUSR2';

/**
 * Holds a server until SIGUSR2, at one of two points. `LISTEN_ON_SIGNAL=1`: ready (its code loaded, its contracts
 * compiled), before it opens its database or takes a port; `npm run dev` starts the next server this way while it
 * still checks a save, and releases it the moment the checks pass and the last server has stopped, so the save is
 * served without waiting for a cold start. `LOAD_ON_SIGNAL=1`: earlier still, its code loaded but nothing read (no
 * configuration, no contract); `npm run dev` keeps one such spare between saves, so a save of the spec (which changes
 * no code the server runs: `generated/` holds types only) costs the new server only its contracts, not loading its
 * code (ADR 0032). The line is written once the signal's handler is in place, so a signal sent after it is never
 * the default SIGUSR2 (which ends a process).
 */
export function waitForSignal(readyLine: string): Promise<void> {
  return new Promise((resolve) => {
    // A signal handler does not keep Node running; without a timer, it would end here (exit 13, top-level await unsettled).
    const alive = setInterval(() => undefined, 60_000);
    process.once('SIGUSR2', () => {
      clearInterval(alive);
      resolve();
    });
    console.error(readyLine);
  });
}
