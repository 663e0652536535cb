/**
 * Pinning processes to CPU cores with `taskset` (util-linux), so a server and the load on it do
 * not take turns on one core. `launch({ core })` starts a process pinned; this pins a running one.
 */
import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';

/** Why processes cannot be pinned to separate cores here, or undefined when they can. */
export function pinningUnavailable(): string | undefined {
  if (availableParallelism() < 2) return 'fewer than 2 cores available';
  try {
    execFileSync('taskset', ['-V'], { stdio: 'ignore' });
  } catch {
    return 'taskset not found';
  }
  return undefined;
}

/** Pins a running process, all its threads included, to `core`; throws with taskset's first line when it fails. */
export function pinToCore(pid: number, core: number): void {
  try {
    execFileSync('taskset', ['-a', '-p', '-c', String(core), String(pid)], { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (error) {
    throw new Error(`taskset failed: ${(error as Error).message.split('\n')[0]}`);
  }
}
