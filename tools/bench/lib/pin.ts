// Server and load generator on different cores, so neither steals the other's CPU.
import { pinningUnavailable, pinToCore } from '../../process/cpu-pinning.js';

export interface Pinning {
  /** The core to start each server on (`launch({ core })`); undefined when nothing is pinned. */
  serverCore?: number;
  loadCore?: number;
  /** One line for the report: how (or why not) the processes were pinned. */
  note: string;
}

const LOAD_CORE = 0;
const SERVER_CORE = 1;

/**
 * Pins this process (all its threads, so autocannon's too) to core 0 and returns how
 * servers are to be started: on core 1. Without `taskset` or a second core nothing is pinned.
 */
export function pinLoadGenerator(wanted: boolean): Pinning {
  if (!wanted) return { note: 'not pinned (--no-pin)' };
  const unavailable = pinningUnavailable();
  if (unavailable !== undefined) return { note: `not pinned: ${unavailable}` };
  try {
    pinToCore(process.pid, LOAD_CORE);
  } catch (error) {
    return { note: `not pinned: ${(error as Error).message}` };
  }
  return {
    serverCore: SERVER_CORE,
    loadCore: LOAD_CORE,
    note: `pinned with taskset: each server on core ${SERVER_CORE}, autocannon (this process) on core ${LOAD_CORE}`,
  };
}
