/**
 * Pinning processes to CPU cores with `taskset` (util-linux), so a server and the load on it do
 * not take turns on one core. `launch({ core })` starts a process pinned; this pins a running one.
 */
import { availableParallelism } from 'node:os';
import { execaSync } from 'execa';

/** Why processes cannot be pinned to separate cores here, or undefined when they can. */
export function pinningUnavailable(): string | undefined {
  if (availableParallelism() < 2) return 'fewer than 2 cores available';
  if (execaSync('taskset', ['-V'], { reject: false }).failed) return 'taskset not found';
  return undefined;
}

/** Pins a running process, all its threads included, to `core`; throws with taskset's first line when it fails. */
export function pinToCore(pid: number, core: number): void {
  const result = execaSync('taskset', ['-a', '-p', '-c', String(core), String(pid)], { reject: false });
  if (result.failed) throw new Error(`taskset failed: ${String(result.stderr || result.shortMessage).split('\n')[0]}`);
}
