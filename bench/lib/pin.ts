// Server and load generator on different cores, so neither steals the other's CPU.
import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';

export interface Pinning {
  enabled: boolean;
  serverCore?: number;
  loadCore?: number;
  /** One line for the report: how (or why not) the processes were pinned. */
  note: string;
}

const LOAD_CORE = 0;
const SERVER_CORE = 1;

function hasTaskset(): boolean {
  try {
    execFileSync('taskset', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * Pins this process (all its threads, so autocannon's too) to core 0 and returns how
 * servers are to be started: on core 1. Without `taskset` or a second core nothing is pinned.
 */
export function pinLoadGenerator(wanted: boolean): Pinning {
  if (!wanted) return { enabled: false, note: 'not pinned (--no-pin)' };
  if (availableParallelism() < 2) return { enabled: false, note: 'not pinned: fewer than 2 cores available' };
  if (!hasTaskset()) return { enabled: false, note: 'not pinned: taskset not found' };
  try {
    execFileSync('taskset', ['-a', '-p', '-c', String(LOAD_CORE), String(process.pid)], { stdio: 'ignore' });
  } catch (error) {
    return { enabled: false, note: `not pinned: taskset failed (${(error as Error).message.split('\n')[0]})` };
  }
  return {
    enabled: true,
    serverCore: SERVER_CORE,
    loadCore: LOAD_CORE,
    note: `pinned with taskset: each server on core ${SERVER_CORE}, autocannon (this process) on core ${LOAD_CORE}`,
  };
}

/** The command line that starts `argv` on the server core, when pinning is on. */
export function onServerCore(pinning: Pinning, argv: string[]): string[] {
  return pinning.enabled ? ['taskset', '-c', String(pinning.serverCore), ...argv] : argv;
}
