/** What a held server writes on stderr once it is ready to listen (`LISTEN_ON_SIGNAL=1`). */
export const READY_TO_LISTEN_LINE = 'Ready to listen on SIGUSR2';

/**
 * Holds a server that is ready (its code loaded, its contracts compiled) until SIGUSR2, before it opens its
 * database or takes a port. `npm run dev` starts the next server this way while it still checks a save, and
 * releases it the moment the checks pass and the last server has stopped: the save is served without waiting
 * for a cold start. The line is written once the signal's handler is in place, so a signal sent after it is
 * never the default SIGUSR2 (which ends a process).
 */
export function waitForListenSignal(): Promise<void> {
  return new Promise((resolve) => {
    // A signal handler does not keep Node running; without a timer, it would end here (exit 13, top-level await unsettled).
    const alive = setInterval(() => undefined, 60_000);
    process.once('SIGUSR2', () => {
      clearInterval(alive);
      resolve();
    });
    console.error(READY_TO_LISTEN_LINE);
  });
}
